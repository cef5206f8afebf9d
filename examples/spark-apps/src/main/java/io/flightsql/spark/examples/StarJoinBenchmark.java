package io.flightsql.spark.examples;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
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
 * keys; and join pushdown ({@code spark.sql.optimizer.datasourceV2JoinPushdown}, Spark 4.1 and
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
          PerformanceBenchmark.count(rowsReceived),
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

  private List<Line> cases() throws Exception {
    List<Line> lines = new ArrayList<>();
    spark.conf().set(JOIN_PUSHDOWN, "false");
    lines.add(
        line(
            "lineitem ⋈ shipmodes (7 rows), count by priority: statistics",
            way("on", this::countByPriority, Map.of()),
            way("statistics=none", this::countByPriority, Map.of("statistics", "none"))));
    lines.add(
        line(
            "lineitem ⋈ shipmodes WHERE priority IN (1, 4) (2 of 7 modes), count by mode:"
                + " runtime filter",
            way("on", this::selectiveStar, Map.of()),
            way(
                "pushDownRuntimeFilter=false",
                this::selectiveStar,
                Map.of("pushDownRuntimeFilter", "false"))));
    Way allOff =
        way(
            "all three off",
            this::selectiveStar,
            Map.of("statistics", "none", "pushDownRuntimeFilter", "false"));
    spark.conf().set(JOIN_PUSHDOWN, "true");
    Way joined = way("on", this::selectiveStar, Map.of());
    lines.add(line("the same: join pushdown", joined, wayWithout(this::selectiveStar)));
    lines.add(line("the same: all three", joined, allOff));
    spark.conf().set(JOIN_PUSHDOWN, "true");
    lines.add(
        line(
            "lineitem ⋈ orders WHERE o_orderdate < 1992-04-01, count and sum by priority:"
                + " join pushdown",
            way("on", this::earlyOrders, Map.of()),
            wayWithout(this::earlyOrders)));
    return lines;
  }

  /** The way with Spark's join pushdown off, the connector's options as they are by default. */
  private Way wayWithout(Function<Map<String, String>, Dataset<Row>> query) throws Exception {
    spark.conf().set(JOIN_PUSHDOWN, "false");
    try {
      return way("datasourceV2JoinPushdown=false", query, Map.of());
    } finally {
      spark.conf().set(JOIN_PUSHDOWN, "true");
    }
  }

  private static Line line(String what, Way on, Way off) {
    if (!on.answer().equals(off.answer())) {
      throw new IllegalStateException(
          what
              + ": "
              + on.name()
              + " answered "
              + on.answer()
              + ", "
              + off.name()
              + " "
              + off.answer());
    }
    return new Line(what, on, off);
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

  private Dataset<Row> selectiveStar(Map<String, String> options) {
    Dataset<Row> lineitem = read("lineitem", options).load();
    // The filter, on another column than the key, stays in Spark's plan too: dynamic pruning
    // filters the fact read only by a dimension whose plan shows a selective filter.
    Dataset<Row> modes =
        read("shipmodes", options)
            .option("keepFiltersInSpark", "true")
            .load()
            .where("priority IN (1, 4)");
    return lineitem.join(modes, col("l_shipmode").equalTo(col("mode"))).groupBy("mode").count();
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

  /**
   * Runs {@code query} (with the read options {@code options}) once to warm up and {@code
   * iterations} times; the best time, the rows received by the last run's scans, its join.
   */
  private Way way(
      String name, Function<Map<String, String>, Dataset<Row>> query, Map<String, String> options)
      throws Exception {
    List<Dataset<Row>> ran = new ArrayList<>();
    Timings timings =
        Timings.measure(
            "star join: " + name,
            iterations,
            () -> {
              Dataset<Row> df = query.apply(options);
              df.collectAsList();
              ran.add(df);
            });
    Dataset<Row> last = ran.get(ran.size() - 1);
    long received = SqlMetrics.latest(spark, ROWS_RECEIVED)[0];
    return new Way(name, timings.best(), received, join(last), rows(last));
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
