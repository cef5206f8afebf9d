package io.flightsql.spark.examples;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.sum;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The star-join part of {@link PerformanceBenchmark}: what the optimizer's three helpers save on
 * joins read through the connector from one embedded DuckDB server: {@code lineitem} with a 7-row
 * dimension ({@code shipmodes}) and with an orders-like table (one row per order of {@code
 * lineitem}). Each helper is measured on and off in the same run, the others as they are by
 * default: statistics (option {@code statistics}), which let Spark broadcast the small side;
 * runtime filters ({@code pushDownRuntimeFilter}), which filter the fact read by the dimension's
 * keys (with the dimension's filter kept in Spark's plan by option {@code keepFiltersInSpark}, or
 * by the session's {@code io.flightsql.spark.FlightSqlExtensions} with every option at its
 * default); and join pushdown ({@code spark.sql.optimizer.datasourceV2JoinPushdown}, Spark 4.1 and
 * later), which has the server join. For each way: the best time of the iterations, the rows the
 * connector received (its metric, summed over the job's scans) and the join the plan ran; both ways
 * of a case must give the same rows, or the benchmark stops.
 */
final class StarJoinBenchmark {
  private static final String ROWS_RECEIVED = "rows received from the Flight SQL server";
  private static final String JOIN_PUSHDOWN = "spark.sql.optimizer.datasourceV2JoinPushdown";

  /** One case of the table: its two ways as measured. */
  record Line(String what, Way on, Way off) {}

  /**
   * One way of running a case: its best time, the rows its scans received, its join, and its
   * answer.
   */
  record Way(String name, double seconds, long rowsReceived, String join, List<String> answer) {
    String describe() {
      return String.format(
          Locale.ROOT,
          "%s %.2f s, %s rows received, %s",
          name,
          seconds,
          PerformanceTable.count(rowsReceived),
          join);
    }
  }

  private final SparkSession spark;
  private final String uri;
  private final int iterations;

  private StarJoinBenchmark(SparkSession spark, String uri, int iterations) {
    this.spark = spark;
    this.uri = uri;
    this.iterations = iterations;
  }

  /** Measures every case on a server of its own with {@code rows} rows of {@code lineitem}. */
  static List<Line> measure(SparkSession spark, long rows, int iterations) throws Exception {
    try (DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder().port(0).endpoints(2).lineitemRows(rows).start()) {
      server.execute(
          "CREATE TABLE shipmodes AS SELECT * FROM (VALUES ('AIR', 1), ('FOB', 2), ('MAIL', 3),"
              + " ('RAIL', 4), ('REG AIR', 5), ('SHIP', 6), ('TRUCK', 7)) t(mode, priority)");
      server.execute(
          "CREATE TABLE orders AS SELECT l_orderkey AS o_orderkey, min(l_shipdate) - 30 AS"
              + " o_orderdate, ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW']"
              + "[l_orderkey % 5 + 1] AS o_orderpriority FROM lineitem GROUP BY l_orderkey");
      return new StarJoinBenchmark(spark, server.uri(), iterations).cases();
    } finally {
      spark.conf().unset(JOIN_PUSHDOWN);
    }
  }

  /** A case: what it measures, the way with the helper on, and the way without. */
  private record Case(String what, Spec on, Spec off) {}

  private List<Line> cases() throws Exception {
    List<Case> cases = new ArrayList<>();
    cases.add(
        new Case(
            "lineitem ⋈ shipmodes (7 rows), count by priority: statistics",
            new Spec("on", false, this::countByPriority, Map.of()),
            new Spec(
                "statistics=none", false, this::countByPriority, Map.of("statistics", "none"))));
    // Dynamic pruning needs the dimension's filter in Spark's plan: keepFiltersInSpark.
    Map<String, String> kept = Map.of("keepFiltersInSpark", "true");
    cases.add(
        new Case(
            "lineitem ⋈ shipmodes WHERE priority IN (1, 4) (2 of 7 modes), count, sum of prices"
                + " and last comment by mode: runtime filter",
            new Spec("on", false, options -> selectiveStar(options, kept), Map.of()),
            new Spec(
                "pushDownRuntimeFilter=false",
                false,
                options -> selectiveStar(options, kept),
                Map.of("pushDownRuntimeFilter", "false"))));
    // With the session's FlightSqlExtensions, the dimension's pushed filter stays in Spark's plan
    // without any read option.
    cases.add(
        new Case(
            "the same, every read option at its default (FlightSqlExtensions): runtime filter",
            new Spec("on", false, options -> selectiveStar(options, Map.of()), Map.of()),
            new Spec(
                "pushDownRuntimeFilter=false",
                false,
                options -> selectiveStar(options, Map.of()),
                Map.of("pushDownRuntimeFilter", "false"))));
    Spec joined = new Spec("on", true, options -> selectiveStar(options, Map.of()), Map.of());
    cases.add(
        new Case(
            "the same, the dimension's filter pushed: join pushdown",
            joined,
            new Spec(
                "datasourceV2JoinPushdown=false",
                false,
                options -> selectiveStar(options, Map.of()),
                Map.of())));
    cases.add(
        new Case(
            "the same: every helper on (by default) or all three off",
            joined,
            new Spec(
                "all three off",
                false,
                options -> selectiveStar(options, Map.of()),
                Map.of("statistics", "none", "pushDownRuntimeFilter", "false"))));
    cases.add(
        new Case(
            "lineitem ⋈ orders WHERE o_orderdate < 1992-04-01, count and sum by priority:"
                + " join pushdown",
            new Spec("on", true, this::earlyOrders, Map.of()),
            new Spec("datasourceV2JoinPushdown=false", false, this::earlyOrders, Map.of())));
    // The JVM (the connector's, Spark's and the server's code) warms up on every way first, so
    // that the first case measured is not the one that pays for it.
    for (Case c : cases) {
      run(c.on(), 0, null);
      run(c.off(), 0, null);
    }
    List<Line> lines = new ArrayList<>();
    for (Case c : cases) {
      lines.add(pair(c.what(), c.on(), c.off()));
    }
    return lines;
  }

  /**
   * One way of running a case: Spark's join pushdown on or off, the query and the read options it
   * gives both tables.
   */
  private record Spec(
      String name,
      boolean joinPushdown,
      Function<Map<String, String>, Dataset<Row>> query,
      Map<String, String> options) {}

  /** What one run of a way left: its DataFrame and the rows its scans received. */
  private record Run(Dataset<Row> df, long received) {}

  /**
   * Measures two ways in rounds, so that a change of the machine's load falls on both: each once to
   * warm up, then {@code iterations} times each, alternately. Both must give the same rows.
   */
  private Line pair(String what, Spec on, Spec off) throws Exception {
    Timings onTimes = new Timings(on.name());
    Timings offTimes = new Timings(off.name());
    Run lastOn = null;
    Run lastOff = null;
    for (int i = 0; i <= iterations; i++) {
      lastOn = run(on, i, onTimes);
      lastOff = run(off, i, offTimes);
    }
    Way onWay =
        new Way(on.name(), onTimes.best(), lastOn.received(), join(lastOn.df()), rows(lastOn.df()));
    Way offWay =
        new Way(
            off.name(),
            offTimes.best(),
            lastOff.received(),
            join(lastOff.df()),
            rows(lastOff.df()));
    if (!onWay.answer().equals(offWay.answer())) {
      throw new IllegalStateException(
          what
              + ": "
              + on.name()
              + " answered "
              + onWay.answer()
              + ", "
              + off.name()
              + " "
              + offWay.answer());
    }
    // The plans the figures came from, before the table.
    for (Run run : List.of(lastOn, lastOff)) {
      System.out.println(
          "Plan of "
              + what
              + ", "
              + (run == lastOn ? on : off).name()
              + ":\n"
              + run.df().queryExecution().executedPlan());
    }
    return new Line(what, onWay, offWay);
  }

  /** Runs the way once (timed when {@code i} is above 0, after a garbage collection). */
  private Run run(Spec spec, int i, Timings timings) throws Exception {
    spark.conf().set(JOIN_PUSHDOWN, Boolean.toString(spec.joinPushdown()));
    System.gc();
    long start = System.nanoTime();
    Dataset<Row> df = spec.query().apply(spec.options());
    df.collectAsList();
    double took = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "%-40s %s %6.2f s%n",
        "star join: " + spec.name(),
        i == 0 ? "warm-up" : "run " + i + "  ",
        took);
    if (i > 0) {
      timings.add(took);
    }
    return new Run(df, SqlMetrics.latest(spark, ROWS_RECEIVED)[0]);
  }

  private DataFrameReader read(String table, Map<String, String> options) {
    return spark
        .read()
        .format("flightsql")
        .option("uri", uri)
        .option("dbtable", table)
        .options(options);
  }

  private Dataset<Row> countByPriority(Map<String, String> options) {
    Dataset<Row> lineitem = read("lineitem", options).load();
    Dataset<Row> modes = read("shipmodes", options).load();
    return lineitem.join(modes, col("l_shipmode").equalTo(col("mode"))).groupBy("priority").count();
  }

  /** {@code dimension} adds read options of the dimension's own. */
  private Dataset<Row> selectiveStar(Map<String, String> options, Map<String, String> dimension) {
    Dataset<Row> lineitem = read("lineitem", options).load();
    Dataset<Row> modes =
        read("shipmodes", options).options(dimension).load().where("priority IN (1, 4)");
    return lineitem
        .join(modes, col("l_shipmode").equalTo(col("mode")))
        .groupBy("mode")
        .agg(
            count(lit(1)).as("n"),
            sum("l_extendedprice").as("price"),
            max("l_comment").as("comment"));
  }

  private Dataset<Row> earlyOrders(Map<String, String> options) {
    Dataset<Row> lineitem = read("lineitem", options).load();
    Dataset<Row> orders = read("orders", options).load();
    return lineitem
        .join(orders, col("l_orderkey").equalTo(col("o_orderkey")))
        .where(col("o_orderdate").lt(lit(java.sql.Date.valueOf("1992-04-01"))))
        .groupBy("o_orderpriority")
        .agg(count(lit(1)).as("n"), sum("l_quantity").as("quantity"));
  }

  /** The join the executed plan ran. */
  private static String join(Dataset<Row> df) {
    String plan = df.queryExecution().executedPlan().toString();
    if (plan.contains("PushedJoin")) {
      return "joined on the server";
    }
    String join =
        plan.contains("BroadcastHashJoin")
            ? "broadcast hash join"
            : plan.contains("SortMergeJoin") ? "sort-merge join" : "other join";
    return plan.contains("RuntimeFilters: [dynamicpruning") ? join + " + runtime filter" : join;
  }

  /** The rows of a small result, as text in a fixed order, to compare two ways. */
  static List<String> rows(Dataset<Row> df) {
    List<String> rows = new ArrayList<>();
    df.collectAsList().forEach(r -> rows.add(r.toString()));
    rows.sort(Comparator.naturalOrder());
    return rows;
  }
}
