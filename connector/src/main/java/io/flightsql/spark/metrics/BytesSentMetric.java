package io.flightsql.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The Arrow bytes a write sent to the server: the buffer sizes of every record batch, which make
 * the body of their IPC messages (message headers are not counted). Spark reads a writer's metrics
 * before its commit sends the last batch, whose bytes are estimated (values, offsets and string
 * data, without validity bitmaps). Summed over tasks.
 */
public final class BytesSentMetric extends SumMetric {
  private static final String NAME = "flightsqlBytesSent";

  public BytesSentMetric() {
    super(NAME, "Arrow bytes sent to the Flight SQL server");
  }

  /** One task's value. */
  public static CustomTaskMetric of(long bytes) {
    return taskValue(NAME, bytes);
  }
}
