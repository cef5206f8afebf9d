package io.flightsql.spark.examples;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The read cases of {@link ReadBenchmark} beyond the full scan, each measured two ways in one run:
 *
 * <ul>
 *   <li><b>filter 1%</b>: {@code l_orderkey <= rows / 400}, which selects exactly 1% of {@code
 *       lineitem} (four lines per order), written to the {@code noop} sink;
 *   <li><b>aggregate</b>: a TPC-H Q1-like {@code GROUP BY l_returnflag, l_linestatus} with SUM, AVG
 *       and COUNT, collected (Q1's shipdate filter is left out: on this data it selects every row);
 * </ul>
 *
 * with pushdown and without it (options {@code pushDownPredicate=false} and {@code
 * pushDownAggregate=false}), and a <b>partitioned</b> full scan of a server with one endpoint per
 * query: {@code numPartitions=2} on {@code l_orderkey} against the one partition it gives alone.
 * Each case prints the rows of {@code lineitem} scanned per second (the table's rows over the time,
 * whatever the server sent) and the Arrow bytes the connector received (its metric), and the ratios
 * of the two ways.
 */
final class ReadCases {
  private static final String ROWS_METRIC = "rows received from the Flight SQL server";
  private static final String BYTES_METRIC = "Arrow bytes received from the Flight SQL server";

  private final SparkSession spark;
  private final String uri;
  private final long rows;
  private final int iterations;

  ReadCases(SparkSession spark, String uri, long rows, int iterations) {
    this.spark = spark;
    this.uri = uri;
    this.rows = rows;
    this.iterations = iterations;
  }

  /**
   * Runs every case.
   *
   * @param singleEndpointUri the URI of a server with one endpoint per query and the same {@code
   *     lineitem}, for the partitioned case
   */
  void run(Supplier<String> singleEndpointUri) throws Exception {
    long lastOrder = rows / 400;
    String filter = "l_orderkey <= " + lastOrder;
    System.out.println();
    long selected = read(uri, true).filter(filter).count();
    System.out.printf(
        Locale.ROOT,
        "filter 1%%: %s selects %,d of %,d rows (%.2f%%)%n",
        filter,
        selected,
        rows,
        100.0 * selected / rows);
    Case filtered =
        compare(
            "filter 1%",
            "pushdown",
            () -> ReadBenchmark.writeToNoop(read(uri, true).filter(filter)),
            "no pushdown",
            () -> ReadBenchmark.writeToNoop(read(uri, false).filter(filter)));

    List<Row> pushed = aggregate(read(uri, true)).collectAsList();
    List<Row> local = aggregate(read(uri, false)).collectAsList();
    if (!Objects.equals(pushed, local)) {
      throw new IllegalStateException(
          "The aggregate differs with and without pushdown: " + pushed + " vs " + local);
    }
    Case aggregated =
        compare(
            "aggregate",
            "pushdown",
            () -> aggregate(read(uri, true)).collectAsList(),
            "no pushdown",
            () -> aggregate(read(uri, false)).collectAsList());

    String single = singleEndpointUri.get();
    Dataset<Row> probe = partitioned(single, 2);
    System.out.printf(
        Locale.ROOT,
        "partitioned: one endpoint per query at %s; %d partition(s) alone, %d with numPartitions=2%n",
        single,
        read(single, true).rdd().getNumPartitions(),
        probe.rdd().getNumPartitions());
    Case split =
        compare(
            "partitioned",
            "2 partitions",
            () -> ReadBenchmark.writeToNoop(partitioned(single, 2)),
            "1 partition",
            () -> ReadBenchmark.writeToNoop(read(single, true)));

    System.out.println();
    System.out.println(
        "Read cases: rates of the best run, rows = rows of lineitem scanned; bytes = the"
            + " connector's Arrow bytes received in one run.");
    for (Case c : new Case[] {filtered, aggregated, split}) {
      System.out.println(c.summary());
    }
  }

  private Dataset<Row> read(String server, boolean pushdown) {
    return spark
        .read()
        .format("flightsql")
        .option("uri", server)
        .option("dbtable", "lineitem")
        .option("pushDownPredicate", pushdown)
        .option("pushDownAggregate", pushdown)
        .load();
  }

  private Dataset<Row> partitioned(String server, int partitions) {
    return spark
        .read()
        .format("flightsql")
        .option("uri", server)
        .option("dbtable", "lineitem")
        .option("partitionColumn", "l_orderkey")
        .option("lowerBound", 1)
        .option("upperBound", Math.max(1, rows / 4))
        .option("numPartitions", partitions)
        .load();
  }

  private static Dataset<Row> aggregate(Dataset<Row> lineitem) {
    return lineitem
        .groupBy("l_returnflag", "l_linestatus")
        .agg(
            functions.sum("l_quantity"),
            functions.sum("l_extendedprice"),
            functions.avg("l_discount"),
            functions.count(functions.lit(1)))
        .orderBy("l_returnflag", "l_linestatus");
  }

  /** Two ways of one case, each warmed up once and then run {@code iterations} times. */
  private Case compare(String name, String first, Timings.Run a, String second, Timings.Run b)
      throws Exception {
    Way one = measure(name + ", " + first, a);
    Way two = measure(name + ", " + second, b);
    return new Case(name, one, two);
  }

  private Way measure(String label, Timings.Run run) throws Exception {
    Timings timings = Timings.measure(label, iterations, run);
    long[] received = SqlMetrics.latest(spark, ROWS_METRIC, BYTES_METRIC);
    return new Way(timings, received[0], received[1]);
  }

  /** The timings of one way and what the connector received in its last run. */
  private record Way(Timings timings, long rowsReceived, long bytesReceived) {}

  private final class Case {
    private final String name;
    private final Way first;
    private final Way second;

    Case(String name, Way first, Way second) {
      this.name = name;
      this.first = first;
      this.second = second;
    }

    String summary() {
      StringBuilder out = new StringBuilder();
      for (Way way : new Way[] {first, second}) {
        out.append(
            String.format(
                Locale.ROOT,
                "%-28s: best %6.2f s  %6.2f M rows/s  received %,d rows, %,d bytes%n",
                way.timings().way(),
                way.timings().best(),
                rows / way.timings().best() / 1e6,
                way.rowsReceived(),
                way.bytesReceived()));
      }
      out.append(
          String.format(
              Locale.ROOT,
              "%-28s: speed %s / %s = %.2fx ; bytes %s / %s = %s",
              name,
              first.timings().way().substring(name.length() + 2),
              second.timings().way().substring(name.length() + 2),
              second.timings().best() / first.timings().best(),
              first.timings().way().substring(name.length() + 2),
              second.timings().way().substring(name.length() + 2),
              second.bytesReceived() > 0
                  ? String.format(
                      Locale.ROOT, "%.3g", (double) first.bytesReceived() / second.bytesReceived())
                  : "n/a"));
      return out.toString();
    }
  }
}
