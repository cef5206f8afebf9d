package io.flightsql.spark;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/** The rows a write sent to the server, summed over tasks. */
public final class RowsWrittenMetric extends SumMetric {
  static final String NAME = "flightsqlRowsWritten";

  public RowsWrittenMetric() {
    super(NAME, "rows written to the Flight SQL server");
  }

  /** One task's value. */
  static CustomTaskMetric of(long rows) {
    return taskValue(NAME, rows);
  }
}
