package io.flightsql.spark.write;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;

/**
 * Makes the writer of each task of a catalog write. Built on the driver, Serializable, used on
 * executors.
 */
final class FlightSqlDataWriterFactory implements DataWriterFactory {
  private static final long serialVersionUID = 2L;

  private final WritePlan plan;

  FlightSqlDataWriterFactory(WritePlan plan) {
    this.plan = plan;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return new FlightSqlDataWriter(plan, partitionId, taskId);
  }
}
