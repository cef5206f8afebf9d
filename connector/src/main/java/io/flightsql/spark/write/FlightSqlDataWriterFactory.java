package io.flightsql.spark.write;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.types.StructType;

/** Makes the writer of each task. Built on the driver, Serializable, used on executors. */
final class FlightSqlDataWriterFactory implements DataWriterFactory {
  private static final long serialVersionUID = 1L;

  private final WritePlan plan;
  private final StructType schema;

  FlightSqlDataWriterFactory(WritePlan plan, StructType schema) {
    this.plan = plan;
    this.schema = schema;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    return new FlightSqlDataWriter(plan, schema, partitionId, taskId);
  }
}
