package io.flightsql.spark;

import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The rows a read received from the server, summed over tasks and shown in the Spark UI's SQL tab.
 * Spark instantiates it on the driver by its no-argument constructor.
 */
public final class RowsReceivedMetric extends CustomSumMetric {
  static final String NAME = "flightsqlRowsReceived";

  public RowsReceivedMetric() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "rows received from the Flight SQL server";
  }

  /** One task's value. */
  static CustomTaskMetric of(long rows) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return NAME;
      }

      @Override
      public long value() {
        return rows;
      }
    };
  }
}
