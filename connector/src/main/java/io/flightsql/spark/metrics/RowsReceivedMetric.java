package io.flightsql.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/** The rows a read received from the server, summed over tasks. */
public final class RowsReceivedMetric extends SumMetric {
  private static final String NAME = "flightsqlRowsReceived";

  public RowsReceivedMetric() {
    super(NAME, "rows received from the Flight SQL server");
  }

  /** One task's value. */
  public static CustomTaskMetric of(long rows) {
    return taskValue(NAME, rows);
  }
}
