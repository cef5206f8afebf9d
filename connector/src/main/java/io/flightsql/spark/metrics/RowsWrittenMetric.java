package io.flightsql.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/** The rows a write sent to the server, summed over tasks. */
public final class RowsWrittenMetric extends SumMetric {
  private static final String NAME = "flightsqlRowsWritten";

  public RowsWrittenMetric() {
    super(NAME, "rows written to the Flight SQL server");
  }

  /** One task's value. */
  public static CustomTaskMetric of(long rows) {
    return taskValue(NAME, rows);
  }
}
