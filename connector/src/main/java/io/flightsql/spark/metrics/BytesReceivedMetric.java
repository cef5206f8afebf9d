package io.flightsql.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The Arrow bytes a read received from the server: the buffer sizes of every record batch, which
 * make the body of their IPC messages (dictionaries and message headers are not counted). Summed
 * over tasks and shown as a plain number of bytes.
 */
public final class BytesReceivedMetric extends SumMetric {
  private static final String NAME = "flightsqlBytesReceived";

  public BytesReceivedMetric() {
    super(NAME, "Arrow bytes received from the Flight SQL server");
  }

  /** One task's value. */
  public static CustomTaskMetric of(long bytes) {
    return taskValue(NAME, bytes);
  }
}
