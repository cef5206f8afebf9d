package io.flightsql.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The time Spark spent consuming what a read received, summed over tasks: from the moment the
 * reader hands Spark a batch to the moment Spark asks for the next one (the work of the operators
 * above the scan in the same stage). Compare with {@link ServerWaitTimeMetric}.
 */
public final class SparkTimeMetric extends TimeMetric {
  private static final String NAME = "flightsqlSparkTime";

  public SparkTimeMetric() {
    super(NAME, "time Spark spent consuming the received batches");
  }

  /** One task's value, in nanoseconds. */
  public static CustomTaskMetric of(long nanos) {
    return taskValue(NAME, nanos);
  }
}
