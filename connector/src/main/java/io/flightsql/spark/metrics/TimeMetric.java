package io.flightsql.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * A time the connector measures in each task, in nanoseconds, summed over tasks and shown in the
 * Spark UI's SQL tab in milliseconds, such as {@code 1234 ms}. Spark instantiates each concrete
 * metric on the driver by its public no-argument constructor.
 */
public abstract class TimeMetric implements CustomMetric {
  private final String name;
  private final String description;

  protected TimeMetric(String name, String description) {
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

  @Override
  public final String aggregateTaskMetrics(long[] taskNanos) {
    long total = 0;
    for (long nanos : taskNanos) {
      total += nanos;
    }
    return total / 1_000_000 + " ms";
  }

  /** One task's value of the metric named {@code name}, in nanoseconds. */
  protected static CustomTaskMetric taskNanos(String name, long nanos) {
    return SumMetric.taskValue(name, nanos);
  }
}
