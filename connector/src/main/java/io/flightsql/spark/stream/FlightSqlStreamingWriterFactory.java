package io.flightsql.spark.stream;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;

/**
 * Makes the writer of each task of one micro-batch: the batch write's own writer of the epoch's
 * plan, which stages the task's rows in a table of the task attempt's own. Built on the driver,
 * Serializable, used on executors.
 */
final class FlightSqlStreamingWriterFactory implements StreamingDataWriterFactory {
  private static final long serialVersionUID = 1L;

  private final DataWriterFactory epoch;

  FlightSqlStreamingWriterFactory(DataWriterFactory epoch) {
    this.epoch = epoch;
  }

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
    return epoch.createWriter(partitionId, taskId);
  }
}
