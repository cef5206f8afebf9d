package io.flightsql.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * A metric the connector sums over tasks and shows in the Spark UI's SQL tab: its name and its
 * description, and the task value that reports it. Spark instantiates each concrete metric on the
 * driver by its public no-argument constructor.
 */
public abstract class SumMetric extends CustomSumMetric {
  private final String name;
  private final String description;

  protected SumMetric(String name, String description) {
    this.name = name;
    this.description = description;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String description() {
    return description;
  }

  /** One task's value of the metric named {@code name}. */
  protected static CustomTaskMetric taskValue(String name, long value) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long value() {
        return value;
      }
    };
  }
}
