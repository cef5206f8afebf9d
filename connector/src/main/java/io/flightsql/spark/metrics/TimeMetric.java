package io.flightsql.spark.metrics;

/**
 * A time the connector measures in each task, in nanoseconds, summed over tasks like any {@link
 * SumMetric} but shown in the Spark UI's SQL tab in milliseconds, such as {@code 1234 ms}.
 */
public abstract class TimeMetric extends SumMetric {
  protected TimeMetric(String name, String description) {
    super(name, description);
  }

  @Override
  public final String aggregateTaskMetrics(long[] taskNanos) {
    long total = 0;
    for (long nanos : taskNanos) {
      total += nanos;
    }
    return total / 1_000_000 + " ms";
  }
}
