package io.flightsql.spark.examples;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * How long a small interactive query takes end to end, {@code collect()} included: a 10-row query
 * through the connector and through Spark's JDBC source with the Arrow Flight SQL JDBC driver, the
 * same server and session, each run 20 times after a first read; the median and the ratio are
 * printed as a markdown table. The first read of each way, after Spark itself is warm (a job has
 * run), is printed too: it holds class loading and the first connection.
 *
 * <p>Arguments: {@code --runs N} (20), {@code --rows N} rows of lineitem on the embedded server
 * (100,000).
 */
public final class LatencyBenchmark {
  static final String QUERY = "SELECT * FROM lineitem WHERE l_orderkey <= 3 LIMIT 10";

  private LatencyBenchmark() {}

  public static void main(String[] args) throws Exception {
    int runs = 20;
    long rows = 100_000;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--runs":
          runs = Integer.parseInt(args[i + 1]);
          break;
        case "--rows":
          rows = Long.parseLong(args[i + 1]);
          break;
        default:
          System.err.println("Unknown argument " + args[i] + "; expected --runs N or --rows N");
          System.exit(2);
      }
    }
    try (DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder().port(0).endpoints(1).lineitemRows(rows).start()) {
      SparkSession spark =
          SparkSession.builder()
              .appName("spark-flightsql latency benchmark")
              .master("local[2]")
              .config("spark.ui.enabled", false)
              .getOrCreate();
      try {
        ReadBenchmark.printEnvironment(spark);
        Figures figures = measure(spark, server.uri(), runs);
        System.out.println();
        System.out.printf(
            Locale.ROOT,
            "Query: %s (10 rows, checked on every run), %d runs each after a first read%n%n",
            QUERY,
            runs);
        System.out.println("| way | first read (Spark warm) | median | best |");
        System.out.println("| --- | ---: | ---: | ---: |");
        row(
            "flightsql",
            figures.connectorFirst(),
            figures.connectorMedian(),
            figures.connectorBest());
        row(
            "spark jdbc (Flight SQL JDBC driver)",
            figures.jdbcFirst(),
            figures.jdbcMedian(),
            figures.jdbcBest());
        row("Spark alone: a 10-row local job", Double.NaN, figures.sparkMedian(), Double.NaN);
        System.out.printf(
            Locale.ROOT,
            "%njdbc median / flightsql median = **%.2fx** (goal: at least 1.5x)%n",
            figures.jdbcMedian() / figures.connectorMedian());
      } finally {
        spark.stop();
      }
    }
  }

  /**
   * The figures of one run, in milliseconds.
   *
   * @param sparkMedian the median of a 10-row job that reads nothing, Spark's own share of each
   *     read
   */
  record Figures(
      double connectorFirst,
      double jdbcFirst,
      double connectorMedian,
      double jdbcMedian,
      double connectorBest,
      double jdbcBest,
      double sparkMedian) {}

  /**
   * Warms Spark with a job, times the first read of each way, then {@code runs} reads of each, the
   * ways alternated so that both see the same machine. The first reads are those of the JVM only if
   * nothing read through the connector or the JDBC driver before.
   */
  static Figures measure(SparkSession spark, String uri, int runs) {
    // Spark warm: a job has run, so what the first reads below cost is their own.
    spark.range(1000).selectExpr("sum(id)").collect();
    Supplier<List<Row>> connector =
        () ->
            spark
                .read()
                .format("flightsql")
                .option("uri", uri)
                .option("query", QUERY)
                .load()
                .collectAsList();
    Supplier<List<Row>> jdbc =
        () ->
            spark
                .read()
                .format("jdbc")
                .option("url", ReadBenchmark.jdbcUrl(uri))
                .option("driver", ReadBenchmark.JDBC_DRIVER)
                .option("query", QUERY)
                .load()
                .collectAsList();
    Supplier<List<Row>> sparkAlone = () -> spark.range(0, 10, 1, 1).toDF().collectAsList();
    double connectorFirst = once(connector);
    double jdbcFirst = once(jdbc);
    Timings connectorRuns = new Timings("flightsql");
    Timings jdbcRuns = new Timings("spark jdbc");
    Timings sparkRuns = new Timings("spark alone");
    for (int i = 0; i < runs; i++) {
      connectorRuns.add(once(connector));
      jdbcRuns.add(once(jdbc));
      sparkRuns.add(once(sparkAlone));
    }
    return new Figures(
        connectorFirst,
        jdbcFirst,
        connectorRuns.median(),
        jdbcRuns.median(),
        connectorRuns.best(),
        jdbcRuns.best(),
        sparkRuns.median());
  }

  /** One read's time in milliseconds, its 10 rows checked. */
  static double once(Supplier<List<Row>> read) {
    long start = System.nanoTime();
    List<Row> rows = read.get();
    double ms = (System.nanoTime() - start) / 1e6;
    if (rows.size() != 10) {
      throw new IllegalStateException("Expected 10 rows, read " + rows.size());
    }
    return ms;
  }

  private static void row(String way, double first, double median, double best) {
    System.out.printf(
        Locale.ROOT,
        "| %s | %s | %.1f ms | %s |%n",
        way,
        Double.isNaN(first) ? "" : String.format(Locale.ROOT, "%.0f ms", first),
        median,
        Double.isNaN(best) ? "" : String.format(Locale.ROOT, "%.1f ms", best));
  }
}
