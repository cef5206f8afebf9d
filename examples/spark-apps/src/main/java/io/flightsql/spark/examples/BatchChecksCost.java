package io.flightsql.spark.examples;

import static io.flightsql.spark.examples.PerformanceTable.count;
import static io.flightsql.spark.examples.PerformanceTable.ms;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.vector.BatchChecks;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;

/**
 * What the checks of every record batch cost a read (the connector's {@code BatchChecks}: offsets,
 * views, type ids, indices, run ends and short decimals, checked before any column reads a batch by
 * address; users cannot turn them off). Two reads of {@code lineitem}: a wide one, all 16 columns
 * (integers, four decimals, dates, six strings), and a string-heavy one, its five text columns.
 * Each is timed with the checks on and off, alternating run by run in this JVM with the order
 * swapped each time, so that both modes see the same machine; the load average is printed beside
 * each pair, as the machine may be shared. Spark writes the rows to the {@code noop} sink, so every
 * value is read.
 *
 * <p>The checks are turned off through {@link BatchChecks#BENCHMARK_UNCHECKED_PROPERTY}, an
 * internal system property that exists for this comparison only (it is unsafe, and the connector
 * logs a warning when it is set).
 *
 * <pre>mvn -q -pl examples/spark-apps exec:exec@performance -Dbenchmark.args="--parts checks"</pre>
 */
final class BatchChecksCost {
  private static final String WIDE = "SELECT * FROM lineitem";
  private static final String STRINGS =
      "SELECT l_comment, l_shipinstruct, l_shipmode, l_returnflag, l_linestatus FROM lineitem";

  private final SparkSession spark;
  private final String uri;
  private final int runs;

  private BatchChecksCost(SparkSession spark, String uri, int runs) {
    this.spark = spark;
    this.uri = uri;
    this.runs = runs;
  }

  /** Times both reads of {@code rows} rows, {@code runs} times per mode, into {@code table}. */
  static void measure(SparkSession spark, long rows, int runs, PerformanceTable table)
      throws Exception {
    try (DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder().port(0).endpoints(2).lineitemRows(rows).start()) {
      BatchChecksCost cost = new BatchChecksCost(spark, server.uri(), runs);
      cost.compare("wide read, all 16 columns of " + count(rows) + " lineitem rows", WIDE, table);
      cost.compare("string-heavy read, its 5 text columns", STRINGS, table);
    } finally {
      System.clearProperty(BatchChecks.BENCHMARK_UNCHECKED_PROPERTY);
    }
  }

  private void compare(String what, String sql, PerformanceTable table) throws Exception {
    time(sql, true);
    time(sql, false);
    double[] checked = new double[runs];
    double[] unchecked = new double[runs];
    for (int i = 0; i < runs; i++) {
      double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      if (i % 2 == 0) {
        checked[i] = time(sql, true);
        unchecked[i] = time(sql, false);
      } else {
        unchecked[i] = time(sql, false);
        checked[i] = time(sql, true);
      }
      System.out.printf(
          Locale.ROOT,
          "checks: %s, run %d (%s first): checked %.0f ms, unchecked %.0f ms, load average %.2f%n",
          what,
          i + 1,
          i % 2 == 0 ? "checked" : "unchecked",
          checked[i],
          unchecked[i],
          load);
    }
    double on = median(checked);
    double off = median(unchecked);
    table.add(
        "batch checks",
        what + ", median of " + runs + " alternated runs",
        ms(on),
        "unchecked " + ms(off),
        String.format(Locale.ROOT, "%+.1f%%", 100 * (on - off) / off),
        "≤ +5%");
  }

  /** Milliseconds of one read into the noop sink, with the checks on or off. */
  private double time(String sql, boolean checked) {
    if (checked) {
      System.clearProperty(BatchChecks.BENCHMARK_UNCHECKED_PROPERTY);
    } else {
      System.setProperty(BatchChecks.BENCHMARK_UNCHECKED_PROPERTY, "true");
    }
    long start = System.nanoTime();
    ReadBenchmark.writeToNoop(
        spark.read().format("flightsql").option("uri", uri).option("query", sql).load());
    return (System.nanoTime() - start) / 1e6;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }
}
