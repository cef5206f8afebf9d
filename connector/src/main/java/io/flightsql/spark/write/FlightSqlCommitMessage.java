package io.flightsql.spark.write;

import io.flightsql.spark.client.metadata.TableRef;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What a committed write task tells the driver: its rows, and where the plan stages them the
 * staging table that holds them (none for a task without rows). Serializable, from executor to
 * driver, in catalog and DataFrame writes alike.
 */
final class FlightSqlCommitMessage implements WriterCommitMessage {
  private static final long serialVersionUID = 1L;

  private final int partitionId;
  private final long taskId;
  private final long rows;
  private final TableRef stagingTable;

  FlightSqlCommitMessage(int partitionId, long taskId, long rows, TableRef stagingTable) {
    this.partitionId = partitionId;
    this.taskId = taskId;
    this.rows = rows;
    this.stagingTable = stagingTable;
  }

  int partitionId() {
    return partitionId;
  }

  long taskId() {
    return taskId;
  }

  long rows() {
    return rows;
  }

  /** The staging table with the task's rows, or null when the task wrote to the target. */
  TableRef stagingTable() {
    return stagingTable;
  }
}
