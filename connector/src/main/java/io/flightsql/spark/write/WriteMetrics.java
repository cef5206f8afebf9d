package io.flightsql.spark.write;

import java.io.Serializable;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkContext;
import org.apache.spark.util.LongAccumulator;

/**
 * The figures of a DataFrame write, summed over its successful tasks as named Spark accumulators
 * (shown with the stage in Spark's UI, and to listeners): the rows written, the Arrow bytes sent
 * and the milliseconds spent waiting for the server. Catalog writes report the same figures as
 * DataSourceV2 custom metrics in the SQL tab. Registered on the driver, Serializable.
 */
final class WriteMetrics implements Serializable {
  private static final long serialVersionUID = 1L;

  static final String ROWS = "rows written to the Flight SQL server";
  static final String BYTES = "Arrow bytes sent to the Flight SQL server";
  static final String SERVER_WAIT = "time waiting for the Flight SQL server (ms)";

  private final LongAccumulator rows;
  private final LongAccumulator bytes;
  private final LongAccumulator serverWaitMillis;

  private WriteMetrics(LongAccumulator rows, LongAccumulator bytes, LongAccumulator wait) {
    this.rows = rows;
    this.bytes = bytes;
    this.serverWaitMillis = wait;
  }

  static WriteMetrics register(SparkContext spark) {
    return new WriteMetrics(
        spark.longAccumulator(ROWS),
        spark.longAccumulator(BYTES),
        spark.longAccumulator(SERVER_WAIT));
  }

  /** One task's figures; Spark keeps those of successful tasks only. */
  void add(long rowsWritten, long bytesSent, long serverWaitNanos) {
    rows.add(rowsWritten);
    bytes.add(bytesSent);
    serverWaitMillis.add(TimeUnit.NANOSECONDS.toMillis(serverWaitNanos));
  }
}
