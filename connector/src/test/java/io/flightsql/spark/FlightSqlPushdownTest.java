package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.RowValues;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ExplainMode;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each pushdown against the embedded DuckDB server: EXPLAIN shows it pushed (or not, with its
 * option off), and the rows are those Spark computes with every pushdown off, value for value.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class FlightSqlPushdownTest {
  private static final String[] SWITCHES = {
    "pushDownPredicate", "pushDownLimit", "pushDownOffset", "pushDownTopN", "pushDownAggregate"
  };

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).endpoints(1).lineitemRows(20_000));

  @RegisterExtension
  @Order(2)
  static final EmbeddedServerExtension twoEndpoints =
      EmbeddedServerExtension.duckDb(server -> server.port(0).endpoints(2).lineitemRows(20_000));

  @RegisterExtension
  @Order(3)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  /** Registers {@code name} as a view of {@code dbtable} (or of a query), pushdown on or off. */
  private static void view(
      DuckDbFlightSqlServer source, String name, String key, String value, boolean pushdown) {
    var reader =
        spark.session().read().format("flightsql").option("uri", source.uri()).option(key, value);
    for (String option : SWITCHES) {
      reader = reader.option(option, Boolean.toString(pushdown));
    }
    reader.load().createOrReplaceTempView(name);
  }

  private static void views(DuckDbFlightSqlServer source, String name, String key, String value) {
    view(source, name, key, value, true);
    view(source, name + "_off", key, value, false);
  }

  static String plan(Dataset<Row> df) {
    return df.queryExecution().explainString(ExplainMode.fromString("formatted"));
  }

  /**
   * Runs {@code sql} over the pushed views and over their {@code _off} twins; returns the pushed
   * plan after checking both give the same rows (in order when {@code ordered}).
   */
  private static String sameRows(String sql, String[] viewNames, boolean ordered) {
    Dataset<Row> pushed = spark.session().sql(sql);
    String off = sql;
    for (String v : viewNames) {
      off = off.replaceAll("\\b" + v + "\\b", v + "_off");
    }
    Dataset<Row> unpushed = spark.session().sql(off);
    List<List<Object>> a = RowValues.fromSpark(pushed.collectAsList());
    List<List<Object>> b = RowValues.fromSpark(unpushed.collectAsList());
    if (!ordered) {
      a = sorted(a);
      b = sorted(b);
    }
    assertThat(a).as(sql).isEqualTo(b);
    String offPlan = plan(unpushed);
    assertThat(offPlan).contains("PushedFilters: []").doesNotContain("PushedAggregates");
    assertThat(offPlan).doesNotContain("PushedLimit").doesNotContain("PushedTopN");
    assertThat(offPlan).doesNotContain("PushedOffset");
    return plan(pushed);
  }

  static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparing(Object::toString));
    return copy;
  }

  @Test
  void filtersArePushedAndTheirSwitchTurnsThemOff() {
    views(duckDb.server(), "li", "dbtable", "lineitem");
    String plan =
        sameRows(
            "SELECT l_orderkey, l_linenumber, l_quantity FROM li"
                + " WHERE l_quantity < 24 AND l_shipdate >= DATE '1994-01-01'"
                + " AND l_shipmode IN ('AIR', 'RAIL') AND l_comment LIKE 'care%'",
            new String[] {"li"}, false);
    assertThat(plan)
        .contains("PushedFilters: [")
        .contains("l_quantity < 24.00")
        .contains("l_shipdate >= 8766")
        .contains("l_shipmode IN ('AIR', 'RAIL')")
        .contains("l_comment LIKE 'care%'")
        .contains(
            "SQL: SELECT \"l_orderkey\", \"l_linenumber\", \"l_quantity\" FROM lineitem WHERE")
        .contains("(\"l_quantity\" < 24.00)")
        .contains("(\"l_shipdate\" >= DATE '1994-01-01')")
        .contains("(\"l_comment\" LIKE 'care%' ESCAPE '!')")
        .doesNotContain("Filter (");
  }

  @Test
  void columnsArePrunedAndNothingIsComposedWhenEveryColumnIsRead() {
    view(duckDb.server(), "td", "query", "SELECT * FROM types_demo", true);
    String pruned = plan(spark.session().sql("SELECT c_int, id FROM td"));
    assertThat(pruned)
        .contains("ReadSchema: struct<id:int,c_int:int>")
        .contains(
            "SQL: SELECT \"id\", \"c_int\" FROM (SELECT * FROM types_demo\n) AS \"flightsql_source\"");
    String all = plan(spark.session().sql("SELECT * FROM td"));
    assertThat(all).contains("SQL: SELECT * FROM types_demo]");
    assertThat(
            spark.session().sql("SELECT count(*) FROM td WHERE c_int IS NULL").first().getLong(0))
        .isEqualTo(1L);
  }

  @Test
  void limitIsPushedAndItsSwitchTurnsItOff() {
    view(
        duckDb.server(),
        "ord",
        "query",
        "SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber",
        true);
    view(
        duckDb.server(),
        "ord_off",
        "query",
        "SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber",
        false);
    String plan =
        sameRows("SELECT l_orderkey, l_linenumber FROM ord LIMIT 7", new String[] {"ord"}, true);
    assertThat(plan).contains("PushedLimit: LIMIT 7").contains(" LIMIT 7]");
  }

  @Test
  void offsetIsPushedWithItsLimit() {
    view(
        duckDb.server(),
        "ord",
        "query",
        "SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber",
        true);
    view(
        duckDb.server(),
        "ord_off",
        "query",
        "SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber",
        false);
    String plan =
        sameRows(
            "SELECT l_orderkey, l_linenumber FROM ord LIMIT 5 OFFSET 3",
            new String[] {"ord"},
            true);
    assertThat(plan).contains("PushedLimit: LIMIT 5").contains("PushedOffset: OFFSET 3");
    assertThat(plan).contains("LIMIT 5 OFFSET 3]");
    String offsetOnly =
        sameRows("SELECT l_orderkey FROM ord OFFSET 19990", new String[] {"ord"}, true);
    assertThat(offsetOnly).contains("PushedOffset: OFFSET 19990").contains(" OFFSET 19990]");
  }

  @ParameterizedTest(name = "{0} endpoint(s)")
  @ValueSource(ints = {1, 2})
  void topNIsPushedAndSparkOrdersTheRowsAgain(int endpoints) {
    DuckDbFlightSqlServer source = endpoints == 1 ? duckDb.server() : twoEndpoints.server();
    views(source, "li", "dbtable", "lineitem");
    String plan =
        sameRows(
            "SELECT l_orderkey, l_linenumber, l_shipdate FROM li"
                + " ORDER BY l_shipdate DESC, l_orderkey, l_linenumber DESC LIMIT 11",
            new String[] {"li"},
            true);
    assertThat(plan)
        .contains("PushedTopN: ORDER BY [l_shipdate DESC NULLS LAST, l_orderkey ASC NULLS FIRST,")
        .contains(
            "ORDER BY \"l_shipdate\" DESC NULLS LAST, \"l_orderkey\" ASC NULLS FIRST,"
                + " \"l_linenumber\" DESC NULLS LAST LIMIT 11]");
  }

  @ParameterizedTest(name = "{0} endpoint(s)")
  @ValueSource(ints = {1, 2})
  void tpchQ1ShapeIsAggregatedOnTheServer(int endpoints) {
    DuckDbFlightSqlServer source = endpoints == 1 ? duckDb.server() : twoEndpoints.server();
    views(source, "li", "dbtable", "lineitem");
    String plan =
        sameRows(
            "SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty,"
                + " sum(l_extendedprice) AS sum_base_price, avg(l_quantity) AS avg_qty,"
                + " avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc,"
                + " count(*) AS count_order, min(l_shipdate), max(l_comment),"
                + " count(DISTINCT l_shipmode), avg(l_linenumber)"
                + " FROM li WHERE l_shipdate <= DATE '1998-09-02'"
                + " GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus",
            new String[] {"li"},
            true);
    assertThat(plan)
        .contains("PushedAggregates: [SUM(l_quantity), SUM(l_extendedprice), COUNT(l_quantity),")
        .contains("COUNT(*)")
        .contains("SUM(l_linenumber), COUNT(l_linenumber)")
        .contains("COUNT(DISTINCT l_shipmode)")
        .contains("PushedGroupBy: [l_returnflag, l_linestatus] (complete)")
        .contains("GROUP BY \"l_returnflag\", \"l_linestatus\"")
        .contains("PushedFilters: [l_shipdate IS NOT NULL, l_shipdate <= 10471]");
  }

  @Test
  void averagesOfIntegersAndDoublesAreComputedByTheServer() {
    views(duckDb.server(), "td", "dbtable", "types_demo");
    String plan =
        sameRows(
            "SELECT c_bool, avg(c_int), avg(c_smallint), avg(c_tinyint), count(c_double),"
                + " min(c_float), max(c_ts), min(c_tstz), max(c_blob) FROM td GROUP BY c_bool",
            new String[] {"td"},
            false);
    assertThat(plan)
        .contains(
            "PushedAggregates: [AVG(c_int), AVG(c_smallint), AVG(c_tinyint), COUNT(c_double),")
        .contains("PushedGroupBy: [c_bool] (complete)");
  }

  @Test
  void limitAfterACompleteAggregateIsPushed() {
    views(duckDb.server(), "li", "dbtable", "lineitem");
    String plan =
        sameRows(
            "SELECT l_shipmode, count(*) FROM li GROUP BY l_shipmode LIMIT 100",
            new String[] {"li"},
            false);
    assertThat(plan).contains("PushedGroupBy: [l_shipmode] (complete)").contains("LIMIT 100]");
  }

  @Test
  void tpchQ1WithExpressionsPushesItsFilterAndAggregatesInSpark() {
    views(duckDb.server(), "li", "dbtable", "lineitem");
    String plan =
        sameRows(
            "SELECT l_returnflag, l_linestatus, sum(l_quantity),"
                + " sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,"
                + " sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,"
                + " avg(l_discount), count(*) FROM li WHERE l_shipdate <= DATE '1998-09-02'"
                + " GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus",
            new String[] {"li"},
            true);
    assertThat(plan).contains("l_shipdate <= 10471").doesNotContain("PushedAggregates");
  }

  @Test
  void tpchQ6ShapePushesItsRangeFilters() {
    views(duckDb.server(), "li", "dbtable", "lineitem");
    String plan =
        sameRows(
            "SELECT sum(l_extendedprice * l_discount) AS revenue, sum(l_quantity), count(*)"
                + " FROM li WHERE l_shipdate >= DATE '1994-01-01'"
                + " AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07"
                + " AND l_quantity < 24",
            new String[] {"li"},
            false);
    assertThat(plan)
        .contains("l_discount >= 0.05")
        .contains("l_discount <= 0.07")
        .contains("(\"l_shipdate\" < DATE '1995-01-01')");
    String pushedAggregate =
        sameRows(
            "SELECT sum(l_quantity), count(*), max(l_extendedprice) FROM li"
                + " WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'"
                + " AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
            new String[] {"li"},
            false);
    assertThat(pushedAggregate)
        .contains("PushedAggregates: [SUM(l_quantity), COUNT(*), MAX(l_extendedprice)]")
        .contains("PushedGroupBy: [] (complete)");
  }

  @Test
  void aggregateSwitchOffLeavesAggregatesToSpark() {
    view(duckDb.server(), "li_noagg", "dbtable", "lineitem", true);
    Dataset<Row> df =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", duckDb.uri())
            .option("dbtable", "lineitem")
            .option("pushDownAggregate", "false")
            .load()
            .groupBy("l_returnflag")
            .count();
    assertThat(plan(df))
        .doesNotContain("PushedAggregates")
        .contains("ReadSchema: struct<l_returnflag:string>");
  }

  /** Each switch alone turns off its own pushdown and leaves the others on. */
  @ParameterizedTest(name = "{0}=false")
  @ValueSource(
      strings = {
        "pushDownPredicate",
        "pushDownLimit",
        "pushDownOffset",
        "pushDownTopN",
        "pushDownAggregate"
      })
  void eachSwitchTurnsOffOnlyItsOwnPushdown(String option) {
    String[][] cases = {
      {
        "pushDownPredicate", "SELECT l_orderkey FROM sw WHERE l_linenumber = 3", "PushedFilters: [l"
      },
      {"pushDownLimit", "SELECT l_orderkey FROM sw LIMIT 3", "PushedLimit"},
      {"pushDownOffset", "SELECT l_orderkey FROM sw LIMIT 3 OFFSET 2", "PushedOffset"},
      {"pushDownTopN", "SELECT l_orderkey FROM sw ORDER BY l_orderkey DESC LIMIT 3", "PushedTopN"},
      {"pushDownAggregate", "SELECT count(*) FROM sw", "PushedAggregates"},
    };
    spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", "lineitem")
        .option(option, "false")
        .load()
        .createOrReplaceTempView("sw");
    for (String[] c : cases) {
      String plan = plan(spark.session().sql(c[1]));
      if (c[0].equals(option)) {
        assertThat(plan).as(c[1]).doesNotContain(c[2]);
      } else {
        assertThat(plan).as(c[1]).contains(c[2]);
      }
    }
  }

  @Test
  void inListsAndNullSafeEqualityOverNulls() {
    views(duckDb.server(), "td", "dbtable", "types_demo");
    String[] queries = {
      "SELECT id FROM td WHERE c_int IN (0, 10, -1, 424242)",
      "SELECT id FROM td WHERE c_varchar IN ('ten', 'it''s \"quoted\"', 'nope')",
      "SELECT id FROM td WHERE c_int <=> 10",
      "SELECT id FROM td WHERE NOT (c_int <=> 10)",
      "SELECT id FROM td WHERE c_varchar <=> 'ten'",
      "SELECT id FROM td WHERE NOT (c_varchar <=> 'ten')",
      "SELECT id FROM td WHERE c_int = c_int OR c_int IS NULL",
      "SELECT id FROM td WHERE NOT (c_int IN (1, 10))",
      "SELECT id FROM td WHERE c_int <> 10",
      "SELECT id FROM td WHERE NOT (c_bool)",
    };
    for (String q : queries) {
      String plan = sameRows(q, new String[] {"td"}, false);
      assertThat(plan).as(q).doesNotContain("PushedFilters: []");
    }
  }

  @Test
  void literalsOfEveryTypeArePushedAndCompareAsSparkDoes() {
    views(duckDb.server(), "td", "dbtable", "types_demo");
    String[] predicates = {
      "c_tinyint = 127",
      "c_smallint > -32768",
      "c_int >= 0",
      "c_bigint = -9223372036854775808",
      "c_bigint < 9223372036854775807",
      "c_float = 0.5",
      "c_float < 42.125",
      "c_double = 0.1",
      "c_double > 1e299",
      "c_dec_short = 99999999.99",
      "c_dec_long = -9999999999999999999999999999.9999999999",
      "c_dec_long > 0.0000000001",
      "c_varchar = 'it''s \"quoted\"'",
      "c_varchar = 'ünïcødé ✓'",
      "c_varchar > 'emoji'",
      "c_blob = X'DEADBEEF'",
      "c_blob < X'80'",
      "c_bool = true",
      "c_date = DATE '2024-02-29'",
      "c_date < DATE '1900-01-02'",
      "c_ts = TIMESTAMP_NTZ '2024-02-29 12:34:56.789012'",
      "c_ts < TIMESTAMP_NTZ '1969-12-31 23:59:59.999999'",
      "c_tstz = TIMESTAMP '2024-02-29 12:34:56.789012+00:00'",
      "c_tstz = TIMESTAMP '1969-07-20 20:17:40.5Z'",
      "c_tstz > TIMESTAMP '2000-01-01 00:00:00Z'",
    };
    for (String zone : new String[] {"UTC", "America/Los_Angeles"}) {
      spark.session().conf().set("spark.sql.session.timeZone", zone);
      try {
        for (String p : predicates) {
          String plan = sameRows("SELECT id FROM td WHERE " + p, new String[] {"td"}, false);
          assertThat(plan).as(p).doesNotContain("PushedFilters: []");
          assertThat(plan).as(p).doesNotContain("Filter (");
        }
      } finally {
        spark.session().conf().set("spark.sql.session.timeZone", "UTC");
      }
    }
  }

  @Test
  void nanAndInfinityStayInSpark() {
    views(duckDb.server(), "td", "dbtable", "types_demo");
    String plan =
        sameRows(
            "SELECT id FROM td WHERE c_double < double('Infinity') AND c_double <> double('NaN')",
            new String[] {"td"},
            false);
    assertThat(plan).contains("Filter (");
  }

  @Test
  void joinOfTwoFlightsqlScans() {
    views(duckDb.server(), "li", "dbtable", "lineitem");
    views(
        duckDb.server(),
        "big",
        "query",
        "SELECT l_orderkey AS okey, count(*) AS lines FROM lineitem GROUP BY l_orderkey");
    String plan =
        sameRows(
            "SELECT li.l_orderkey, li.l_linenumber, big.lines FROM li JOIN big"
                + " ON li.l_orderkey = big.okey WHERE big.lines = 4 AND li.l_quantity > 45",
            new String[] {"li", "big"},
            false);
    assertThat(plan).contains("(\"lines\" = 4)").contains("(\"l_quantity\" > 45.00)");
  }

  @Test
  void explainFormattedShowsTheSql() {
    views(duckDb.server(), "li", "dbtable", "lineitem");
    List<Row> rows =
        spark
            .session()
            .sql("EXPLAIN FORMATTED SELECT l_orderkey FROM li WHERE l_linenumber = 2")
            .collectAsList();
    assertThat(rows.get(0).getString(0))
        .contains(
            "SQL: SELECT \"l_orderkey\" FROM lineitem WHERE (\"l_linenumber\" IS NOT NULL) AND (\"l_linenumber\" = 2)");
  }

  @Test
  void nestedFieldFiltersStayInSpark() {
    Map<String, String> options =
        Map.of(
            "uri",
            duckDb.uri(),
            "query",
            "SELECT id, {'a': id, 'b': c_varchar} AS s FROM types_demo");
    spark
        .session()
        .read()
        .format("flightsql")
        .options(options)
        .load()
        .createOrReplaceTempView("nested");
    Dataset<Row> df = spark.session().sql("SELECT id FROM nested WHERE s.a = 3");
    assertThat(plan(df)).contains("PushedFilters: []").contains("Filter (");
    assertThat(df.collectAsList()).hasSize(1);
  }
}
