package io.flightsql.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/** The Arrow record batches a read received from the server, summed over tasks. */
public final class BatchesReceivedMetric extends SumMetric {
  private static final String NAME = "flightsqlBatchesReceived";

  public BatchesReceivedMetric() {
    super(NAME, "record batches received from the Flight SQL server");
  }

  /** One task's value. */
  public static CustomTaskMetric of(long batches) {
    return taskValue(NAME, batches);
  }
}
