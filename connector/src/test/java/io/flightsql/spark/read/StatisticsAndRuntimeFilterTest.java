package io.flightsql.spark.read;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.AdversarialValues;
import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.server.RecordedCall;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.LogCapture;
import io.flightsql.spark.testing.RowValues;
import io.flightsql.spark.testing.SparkSessionExtension;
import io.flightsql.spark.testing.SqlUiMetrics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ExplainMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What Spark's optimizer learns from reads of the embedded DuckDB server, which gives the row count
 * of each query it plans: a join with a small read is planned as a broadcast join without a hint,
 * from figures EXPLAIN COST shows, and the query planned for them is the one read; a star join with
 * a selective dimension filters its fact read at run time, so the fact read receives only the rows
 * of the dimension's keys, with the rows Spark computes with runtime filters off. Also a runtime IN
 * list of adversarial strings, and the range sent for a long list.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class StatisticsAndRuntimeFilterTest {
  private static final long LINEITEM_ROWS = 20_000;
  private static final String ROWS_RECEIVED = "rows received from the Flight SQL server";
  private static final CallRecorder RECORDER = new CallRecorder();

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(
          server ->
              server
                  .port(0)
                  .endpoints(2)
                  .lineitemRows(LINEITEM_ROWS)
                  .middleware(CallRecorder.KEY, RECORDER)
                  .actionObserver(RECORDER::actionStarted));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark =
      SparkSessionExtension.local()
          // Join pushdown would take these joins whole on Spark 4.1 (JoinPushdownTest).
          .config("spark.sql.optimizer.datasourceV2JoinPushdown", "false");

  @BeforeAll
  static void tables() {
    duckDb
        .server()
        .execute(
            "CREATE TABLE shipmodes AS SELECT * FROM (VALUES ('AIR', 1), ('FOB', 2), ('MAIL', 3),"
                + " ('RAIL', 4), ('REG AIR', 5), ('SHIP', 6), ('TRUCK', 7)) t(mode, priority)");
    List<String> strings = AdversarialValues.strings(false);
    StringBuilder words = new StringBuilder("CREATE TABLE words AS SELECT * FROM (VALUES ");
    for (int i = 0; i < strings.size(); i++) {
      words.append(i > 0 ? ", " : "").append("(").append(sqlString(strings.get(i)));
      words.append(", ").append(i).append(")");
    }
    duckDb.server().execute(words.append(") t(w, n)").toString());
  }

  private static String sqlString(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  private static DataFrameReader flightsql(String table) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", table);
  }

  private static String plan(Dataset<Row> df, String mode) {
    return df.queryExecution().explainString(ExplainMode.fromString(mode));
  }

  private static List<List<Object>> sortedRows(Dataset<Row> df) {
    List<List<Object>> rows = new ArrayList<>(RowValues.fromSpark(df.collectAsList()));
    rows.sort(Comparator.comparing(Object::toString));
    return rows;
  }

  @Test
  void aJoinWithASmallReadIsBroadcastWithoutAHintFromTheServersFigures() {
    Dataset<Row> lineitem = flightsql("lineitem").load();
    Dataset<Row> joined =
        lineitem
            .join(flightsql("shipmodes").load(), col("l_shipmode").equalTo(col("mode")))
            .groupBy("priority")
            .count();

    assertThat(plan(joined, "cost")).contains("rowCount=7").contains("rowCount=2.00E+4");
    String physical = plan(joined, "formatted");
    assertThat(physical).contains("BroadcastHashJoin").doesNotContain("SortMergeJoin");
    Dataset<Row> blind =
        lineitem
            .join(
                flightsql("shipmodes").option("statistics", "none").load(),
                col("l_shipmode").equalTo(col("mode")))
            .groupBy("priority")
            .count();
    Dataset<Row> blindBoth =
        flightsql("lineitem")
            .option("statistics", "none")
            .load()
            .join(
                flightsql("shipmodes").option("statistics", "none").load(),
                col("l_shipmode").equalTo(col("mode")));
    assertThat(plan(blindBoth, "formatted")).contains("SortMergeJoin");
    assertThat(plan(blind, "cost")).doesNotContain("rowCount=7");
    assertThat(sortedRows(joined)).isEqualTo(sortedRows(blind)).hasSize(7);
  }

  /** The plan made for the statistics is the one the partitions read: one plan per read. */
  @Test
  void theQueryPlannedForTheStatisticsIsTheOneRead() {
    Dataset<Row> modes = flightsql("shipmodes").load().where("priority > 2");
    assertThat(plan(modes, "cost")).contains("rowCount=5");
    RECORDER.clear();
    assertThat(modes.collectAsList()).hasSize(5);
    List<String> calls =
        RECORDER.calls().stream()
            .map(RecordedCall::method)
            .filter(m -> m.endsWith("FlightInfo"))
            .collect(Collectors.toList());
    assertThat(calls).as("the plan of the EXPLAIN above is read, not made again").isEmpty();
  }

  @Test
  void aStarJoinFiltersItsFactReadAtRunTimeByTheDimensionsKeys() throws Exception {
    Dataset<Row> lineitem = flightsql("lineitem").load();
    Dataset<Row> picked =
        flightsql("shipmodes")
            .option("keepFiltersInSpark", "true")
            .load()
            // Not on the join key, from which Spark would infer a static filter of lineitem.
            .where("priority IN (1, 4)");
    Dataset<Row> star =
        lineitem
            .join(picked, lineitem.col("l_shipmode").equalTo(picked.col("mode")))
            .groupBy("mode")
            .count();

    List<List<Object>> rows = sortedRows(star);
    Map<String, String> received = SqlUiMetrics.byNode(spark.session(), ROWS_RECEIVED);
    long factRows = factRowsReceived(received);
    long matching = rows.stream().mapToLong(r -> (Long) r.get(1)).sum();
    assertThat(factRows).as("rows the fact read received: %s", received).isEqualTo(matching);
    assertThat(matching).isLessThan(LINEITEM_ROWS / 2).isPositive();
    assertThat(plan(star, "formatted"))
        .contains(
            "SQL: SELECT \"l_shipmode\" FROM lineitem WHERE (\"l_shipmode\" IS NOT NULL)"
                + " AND (\"l_shipmode\" IN ('AIR', 'RAIL'))]");

    Dataset<Row> whole = flightsql("lineitem").option("pushDownRuntimeFilter", "false").load();
    Dataset<Row> unfiltered =
        whole
            .join(picked, whole.col("l_shipmode").equalTo(picked.col("mode")))
            .groupBy("mode")
            .count();
    assertThat(sortedRows(unfiltered)).isEqualTo(rows);
    assertThat(factRowsReceived(SqlUiMetrics.byNode(spark.session(), ROWS_RECEIVED)))
        .isEqualTo(LINEITEM_ROWS);
  }

  /**
   * Without {@code io.flightsql.spark.FlightSqlExtensions} (RuntimeFilterExtensionTest) and without
   * {@code keepFiltersInSpark}, the dimension's filter is pushed whole into its scan, Spark sees no
   * selective filter on that side, and the fact read receives every row.
   */
  @Test
  void withoutTheExtensionADimensionFilterPushedWholeLeavesTheFactReadWhole() throws Exception {
    Dataset<Row> lineitem = flightsql("lineitem").load();
    Dataset<Row> picked = flightsql("shipmodes").load().where("priority IN (1, 4)");
    Dataset<Row> star =
        lineitem
            .join(picked, lineitem.col("l_shipmode").equalTo(picked.col("mode")))
            .groupBy("mode")
            .count();
    assertThat(sortedRows(star)).hasSize(2);
    assertThat(factRowsReceived(SqlUiMetrics.byNode(spark.session(), ROWS_RECEIVED)))
        .isEqualTo(LINEITEM_ROWS);
    assertThat(plan(star, "formatted")).doesNotContain("dynamicpruning");
  }

  /** A read split by the client runs each partition's query with the runtime filter. */
  @Test
  void clientPartitionsCombineWithTheRuntimeFilter() throws Exception {
    Dataset<Row> fact =
        flightsql("lineitem")
            .option("partitionColumn", "l_orderkey")
            .option("lowerBound", "1")
            .option("upperBound", Long.toString(LINEITEM_ROWS / 4))
            .option("numPartitions", "3")
            .load();
    Dataset<Row> picked =
        flightsql("shipmodes")
            .option("keepFiltersInSpark", "true")
            .load()
            .where("priority IN (1, 4)");
    Dataset<Row> star =
        fact.join(broadcast(picked), fact.col("l_shipmode").equalTo(picked.col("mode")))
            .groupBy("mode")
            .count();

    List<List<Object>> rows = sortedRows(star);
    long matching = rows.stream().mapToLong(r -> (Long) r.get(1)).sum();
    assertThat(factRowsReceived(SqlUiMetrics.byNode(spark.session(), ROWS_RECEIVED)))
        .isEqualTo(matching);
    assertThat(rows).hasSize(2);
    assertThat(plan(star, "formatted"))
        .contains("Partitioning: partitionColumn=l_orderkey")
        .contains("(\"l_shipmode\" IN ('AIR', 'RAIL'))]");
  }

  /** The rows received by the scan of lineitem, whose description holds its SQL. */
  private static long factRowsReceived(Map<String, String> byNode) {
    return factRowsReceivedFrom("FROM lineitem", byNode);
  }

  /**
   * A runtime IN list of strings with quotes of every kind, comments, backslashes and a canary's
   * DROP TABLE, each written as the dialect's literal: the filtered read gives Spark's own answer.
   */
  @Test
  void aRuntimeInListOfAdversarialStringsGivesSparksOwnAnswer() {
    Dataset<Row> chosen =
        flightsql("words")
            .option("keepFiltersInSpark", "true")
            .load()
            .where("n % 3 = 0 AND length(w) < 1000");
    Dataset<Row> words = flightsql("words").load();
    Dataset<Row> joined = words.join(broadcast(chosen.select("w")), "w").select("w", "n");
    Dataset<Row> off =
        flightsql("words")
            .option("pushDownRuntimeFilter", "false")
            .load()
            .join(broadcast(chosen.select("w")), "w")
            .select("w", "n");

    assertThat(sortedRows(joined)).isEqualTo(sortedRows(off)).isNotEmpty();
    assertThat(plan(joined, "formatted"))
        .contains("(\"w\" IN (")
        .contains(sqlString(AdversarialValues.DROP_CANARY));
  }

  /** Beyond runtimeFilterMaxValues keys, the range from the smallest to the largest is sent. */
  @Test
  void aLongKeyListIsSentAsItsRange() throws Exception {
    Dataset<Row> fact = flightsql("lineitem").option("runtimeFilterMaxValues", "1").load();
    Dataset<Row> picked =
        flightsql("shipmodes")
            .option("keepFiltersInSpark", "true")
            .load()
            .where("priority IN (2, 3)");
    Dataset<Row> star =
        fact.join(picked, fact.col("l_shipmode").equalTo(picked.col("mode")))
            .groupBy("mode")
            .count();

    List<List<Object>> rows = sortedRows(star);
    long factRows = factRowsReceived(SqlUiMetrics.byNode(spark.session(), ROWS_RECEIVED));
    long matching = rows.stream().mapToLong(r -> (Long) r.get(1)).sum();
    // FOB to MAIL is a range with nothing between the two.
    assertThat(factRows).isEqualTo(matching);
    assertThat(plan(star, "formatted"))
        .contains("(\"l_shipmode\" >= 'FOB' AND \"l_shipmode\" <= 'MAIL')]");
  }

  /**
   * A server that refuses the query with its runtime filter (here Derby's {@code TIMESTAMP('...')}
   * literal, which DuckDB cannot parse, under option {@code dialect=derby}) is read without it: the
   * read works, whole, with Spark's answer, and a warning says why.
   */
  @Test
  void aRuntimeFilterTheServerRefusesIsLeftOut() throws Exception {
    duckDb
        .server()
        .execute(
            "CREATE TABLE IF NOT EXISTS events AS SELECT TIMESTAMP '2024-01-01 00:00:00' +"
                + " INTERVAL (i % 10) HOUR AS ts, i AS v FROM range(100) r(i)");
    duckDb
        .server()
        .execute(
            "CREATE TABLE IF NOT EXISTS moments AS SELECT * FROM (VALUES (TIMESTAMP"
                + " '2024-01-01 01:00:00', 'a'), (TIMESTAMP '2024-01-01 02:00:00', 'b')) t(ts,"
                + " tag)");
    Dataset<Row> dimension =
        flightsql("moments").option("keepFiltersInSpark", "true").load().where("tag = 'a'");
    Dataset<Row> fact = flightsql("events").option("dialect", "derby").load();
    Dataset<Row> whole =
        flightsql("events")
            .option("dialect", "derby")
            .option("pushDownRuntimeFilter", "false")
            .load();
    List<List<Object>> expected =
        sortedRows(whole.join(broadcast(dimension), whole.col("ts").equalTo(dimension.col("ts"))));
    try (LogCapture log = LogCapture.start()) {
      Dataset<Row> joined =
          fact.join(broadcast(dimension), fact.col("ts").equalTo(dimension.col("ts")));
      assertThat(sortedRows(joined)).isEqualTo(expected).hasSize(10);
      assertThat(log.text()).contains("refused the runtime filter of the read of events");
    }
    assertThat(
            factRowsReceivedFrom(
                "FROM events", SqlUiMetrics.byNode(spark.session(), ROWS_RECEIVED)))
        .isEqualTo(100);
  }

  private static long factRowsReceivedFrom(String sql, Map<String, String> byNode) {
    return byNode.entrySet().stream()
        .filter(e -> e.getKey().contains(sql))
        .mapToLong(e -> SqlUiMetrics.number(e.getValue()))
        .sum();
  }
}
