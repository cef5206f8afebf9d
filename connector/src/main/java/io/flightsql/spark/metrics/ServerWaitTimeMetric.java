package io.flightsql.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The time tasks spent waiting for the server, summed over tasks. Reads: planning a client-side
 * partition's query, opening each stream (DoGet until its schema) and waiting for each record
 * batch. Writes: beginning the task's transaction, starting the upload and sending each batch
 * (waiting until gRPC's flow control takes it, which it does as fast as the server reads); Spark
 * reads a writer's metrics before its commit, so the last batch, the end of the upload and the
 * commit are not in it. Beside {@link SparkTimeMetric} on reads, it tells whether the server or
 * Spark is the slow side.
 */
public final class ServerWaitTimeMetric extends TimeMetric {
  private static final String NAME = "flightsqlServerWaitTime";

  public ServerWaitTimeMetric() {
    super(NAME, "time waiting for the Flight SQL server");
  }

  /** One task's value, in nanoseconds. */
  public static CustomTaskMetric of(long nanos) {
    return taskValue(NAME, nanos);
  }
}
