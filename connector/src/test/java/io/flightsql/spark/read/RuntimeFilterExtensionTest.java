package io.flightsql.spark.read;

import static org.apache.spark.sql.functions.sum;
import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.FlightSqlExtensions;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.RowValues;
import io.flightsql.spark.testing.SparkSessionExtension;
import io.flightsql.spark.testing.SqlUiMetrics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
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
 * With {@code spark.sql.extensions=io.flightsql.spark.FlightSqlExtensions} and every read option at
 * its default, a star join whose dimension filter is pushed to the server filters its fact read at
 * run time: the fact read receives only the rows of the dimension's keys, with Spark's answer; and
 * what was pushed before (aggregates over a filtered read, on either side of a join) still is.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class RuntimeFilterExtensionTest {
  private static final long LINEITEM_ROWS = 20_000;
  private static final String ROWS_RECEIVED = "rows received from the Flight SQL server";

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(
          server -> server.port(0).endpoints(2).lineitemRows(LINEITEM_ROWS));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark =
      SparkSessionExtension.local()
          .config("spark.sql.extensions", FlightSqlExtensions.class.getName())
          .config("spark.sql.optimizer.datasourceV2JoinPushdown", "false");

  @BeforeAll
  static void tables() {
    duckDb
        .server()
        .execute(
            "CREATE TABLE shipmodes AS SELECT * FROM (VALUES ('AIR', 1), ('FOB', 2), ('MAIL', 3),"
                + " ('RAIL', 4), ('REG AIR', 5), ('SHIP', 6), ('TRUCK', 7)) t(mode, priority)");
  }

  private static DataFrameReader flightsql(String table) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", table);
  }

  private static String plan(Dataset<Row> df) {
    return df.queryExecution().explainString(ExplainMode.fromString("formatted"));
  }

  private static List<List<Object>> sortedRows(Dataset<Row> df) {
    List<List<Object>> rows = new ArrayList<>(RowValues.fromSpark(df.collectAsList()));
    rows.sort(Comparator.comparing(Object::toString));
    return rows;
  }

  private static long rowsReceivedFrom(String sql) throws Exception {
    Map<String, String> byNode = SqlUiMetrics.byNode(spark.session(), ROWS_RECEIVED);
    return byNode.entrySet().stream()
        .filter(e -> e.getKey().contains(sql))
        .mapToLong(e -> SqlUiMetrics.number(e.getValue()))
        .sum();
  }

  @Test
  void aStarJoinWithTheDefaultsReadsOnlyTheFactRowsOfTheDimensionsKeys() throws Exception {
    Dataset<Row> lineitem = flightsql("lineitem").load();
    // Not on the join key, from which Spark would infer a static filter of lineitem.
    Dataset<Row> picked = flightsql("shipmodes").load().where("priority IN (1, 4)");
    Dataset<Row> star =
        lineitem
            .join(picked, lineitem.col("l_shipmode").equalTo(picked.col("mode")))
            .groupBy("mode")
            .count();

    List<List<Object>> rows = sortedRows(star);
    long factRows = rowsReceivedFrom("FROM lineitem");
    long matching = rows.stream().mapToLong(r -> (Long) r.get(1)).sum();
    assertThat(factRows).isEqualTo(matching);
    assertThat(matching).isLessThan(LINEITEM_ROWS / 2).isPositive();
    assertThat(plan(star))
        .contains(
            "SQL: SELECT * FROM shipmodes WHERE (\"priority\" IN (1, 4)) AND (\"mode\" IS NOT NULL)]")
        .contains("Condition : (priority")
        .contains(
            "SQL: SELECT \"l_shipmode\" FROM lineitem WHERE (\"l_shipmode\" IS NOT NULL)"
                + " AND (\"l_shipmode\" IN ('AIR', 'RAIL'))]");

    Dataset<Row> whole = flightsql("lineitem").option("pushDownRuntimeFilter", "false").load();
    Dataset<Row> unfiltered =
        whole
            .join(picked, whole.col("l_shipmode").equalTo(picked.col("mode")))
            .groupBy("mode")
            .count();
    assertThat(sortedRows(unfiltered)).isEqualTo(rows).hasSize(2);
    assertThat(rowsReceivedFrom("FROM lineitem")).isEqualTo(LINEITEM_ROWS);
  }

  @Test
  void anAggregateOverAFilteredReadIsStillPushed() {
    Dataset<Row> totals =
        flightsql("lineitem")
            .load()
            .where("l_quantity < 10")
            .groupBy("l_returnflag")
            .agg(sum("l_quantity"));
    assertThat(plan(totals)).contains("PushedAggregates: [SUM(l_quantity)]");
    assertThat(sortedRows(totals)).isNotEmpty();
  }

  /**
   * An aggregate on either side of a join stays pushed into its read: the rule marks only a read
   * right under the join.
   */
  @Test
  void aggregatesOnEitherSideOfAJoinAreStillPushed() {
    Dataset<Row> perMode =
        flightsql("lineitem")
            .load()
            .where("l_quantity < 10")
            .groupBy("l_shipmode")
            .agg(sum("l_quantity").as("quantity"));
    Dataset<Row> bestModes =
        flightsql("shipmodes")
            .load()
            .where("priority < 4")
            .groupBy("mode")
            .agg(sum("priority").as("rank"));
    Dataset<Row> joined =
        perMode.join(bestModes, perMode.col("l_shipmode").equalTo(bestModes.col("mode")));
    String plan = plan(joined);
    assertThat(plan).contains("PushedAggregates: [SUM(l_quantity)]");
    assertThat(plan).contains("PushedAggregates: [SUM(priority)]");
    assertThat(sortedRows(joined)).hasSize(3);
  }

  /** A read that sets keepFiltersInSpark itself keeps its choice. */
  @Test
  void aReadsOwnKeepFiltersInSparkIsKept() {
    Dataset<Row> lineitem = flightsql("lineitem").load();
    Dataset<Row> picked =
        flightsql("shipmodes")
            .option("keepFiltersInSpark", "false")
            .load()
            .where("priority IN (1, 4)");
    Dataset<Row> star =
        lineitem
            .join(picked, lineitem.col("l_shipmode").equalTo(picked.col("mode")))
            .select("mode");
    assertThat(plan(star)).doesNotContain("dynamicpruning");
    assertThat(star.count()).isPositive();
  }
}
