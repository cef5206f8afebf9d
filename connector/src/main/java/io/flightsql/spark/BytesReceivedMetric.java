package io.flightsql.spark;

import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The Arrow bytes a read received from the server: the buffer sizes of every record batch, which
 * make the body of their IPC messages (dictionaries and message headers are not counted). Summed
 * over tasks and shown in the Spark UI's SQL tab as a plain number of bytes. Spark instantiates it
 * on the driver by its no-argument constructor.
 */
public final class BytesReceivedMetric extends CustomSumMetric {
  static final String NAME = "flightsqlBytesReceived";

  public BytesReceivedMetric() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Arrow bytes received from the Flight SQL server";
  }

  /** One task's value. */
  static CustomTaskMetric of(long bytes) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return NAME;
      }

      @Override
      public long value() {
        return bytes;
      }
    };
  }
}
