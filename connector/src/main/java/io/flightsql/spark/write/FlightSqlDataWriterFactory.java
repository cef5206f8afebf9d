package io.flightsql.spark.write;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;

/**
 * Makes the writer of each task of a catalog write or of a streaming query's epoch. Built on the
 * driver, Serializable, used on executors.
 */
final class FlightSqlDataWriterFactory implements DataWriterFactory {
  private static final long serialVersionUID = 3L;

  private final WritePlan plan;

  /** For each column the plan writes, its position in the rows Spark gives; null: the same. */
  private final int[] columnOrder;

  FlightSqlDataWriterFactory(WritePlan plan) {
    this(plan, null);
  }

  FlightSqlDataWriterFactory(WritePlan plan, int[] columnOrder) {
    this.plan = plan;
    this.columnOrder = columnOrder == null ? null : columnOrder.clone();
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    DataWriter<InternalRow> writer = new FlightSqlDataWriter(plan, partitionId, taskId);
    return columnOrder == null ? writer : new ReorderedRows(writer, columnOrder, plan.schema());
  }
}
