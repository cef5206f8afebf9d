package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.RowValues;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
 * Joins of two reads of the embedded DuckDB server, pushed into one query on Spark 4.1 and later:
 * inner, left and right joins, with NULL keys, duplicate keys, duplicate column names, filters on
 * both sides, conditions beyond equality, a self-join, three reads, and an aggregate and a top-N
 * over a pushed join. Every pushed join gives the rows Spark's own join gives (the same reads with
 * {@code pushDownJoin=false}), and EXPLAIN shows it pushed and its SQL; a join whose condition
 * cannot be written, or of reads with different connection options, stays with Spark.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class JoinPushdownTest {
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).endpoints(2).lineitemRows(0));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark =
      SparkSessionExtension.local().config("spark.sql.optimizer.datasourceV2JoinPushdown", "true");

  @BeforeAll
  static void tables() {
    duckDb
        .server()
        .execute(
            "CREATE TABLE jl AS SELECT * FROM (VALUES (1, 10, 'a', 1.5), (2, 10, 'b', -1.0),"
                + " (3, 20, 'it''s', 2.0), (4, NULL, 'd', NULL), (5, 30, NULL, 0.0),"
                + " (6, 40, 'f', 9.0)) t(id, k, name, v)");
    duckDb
        .server()
        .execute(
            "CREATE TABLE jr AS SELECT * FROM (VALUES (1, 10, 'x', 1.25::DECIMAL(10,2)),"
                + " (2, 20, 'it''s', 2.50), (3, 20, 'z', NULL), (4, NULL, 'd', 4.00),"
                + " (5, 50, NULL, 5.00), (6, 10, 'a', 0.00)) t(id, k, name, w)");
    duckDb
        .server()
        .execute(
            "CREATE TABLE jx AS SELECT * FROM (VALUES (10, 'ten'), (20, 'twenty'), (20, 'again'),"
                + " (60, 'sixty')) t(k, tag)");
    for (String table : new String[] {"jl", "jr", "jx"}) {
      read(table).load().createOrReplaceTempView(table);
      read(table).option("pushDownJoin", "false").load().createOrReplaceTempView(table + "_off");
    }
  }

  private static DataFrameReader read(String table) {
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

  private static List<String> sortedRows(Dataset<Row> df) {
    List<String> rows = new ArrayList<>();
    for (List<Object> row : RowValues.fromSpark(df.collectAsList())) {
      rows.add(row.toString());
    }
    rows.sort(Comparator.naturalOrder());
    return rows;
  }

  /**
   * Runs {@code sql} over the views, and over their {@code _off} twins, which push no join; checks
   * both give the same rows and returns the plan of the first.
   */
  private static String sameRows(String sql) {
    Dataset<Row> pushed = spark.session().sql(sql);
    Dataset<Row> own = spark.session().sql(sql.replaceAll("\\b(jl|jr|jx)\\b", "$1_off"));
    assertThat(plan(own)).as(sql).doesNotContain("PushedJoin");
    assertThat(sortedRows(pushed)).as(sql).isEqualTo(sortedRows(own));
    return plan(pushed);
  }

  private static void pushed(String sql, String... shown) {
    String plan = sameRows(sql);
    assertThat(plan).as(sql).contains("PushedJoin: [").contains(shown).doesNotContain("Join ");
  }

  @Test
  void innerLeftAndRightJoinsWithNullAndDuplicateKeysGiveSparksOwnRows() {
    pushed(
        "SELECT * FROM jl JOIN jr ON jl.k = jr.k",
        "jl INNER JOIN jr ON k = k_1",
        " FROM (SELECT \"id\" AS \"id\", \"k\" AS \"k\", \"name\" AS \"name\", \"v\" AS \"v\""
            + " FROM jl WHERE (\"k\" IS NOT NULL)\n) AS \"flightsql_left\" INNER JOIN");
    pushed("SELECT jl.id, jr.id, jr.w FROM jl LEFT JOIN jr ON jl.k = jr.k", "LEFT OUTER JOIN");
    pushed(
        "SELECT jl.id, jl.name, jr.id, jr.name FROM jl RIGHT JOIN jr ON jl.k = jr.k",
        "jl RIGHT OUTER JOIN jr",
        "AS \"flightsql_right\" LEFT OUTER JOIN (SELECT");
  }

  @Test
  void filtersOnBothSidesAndConditionsBeyondEqualityAreJoinedOnTheServer() {
    pushed(
        "SELECT jl.id, jr.id FROM (SELECT * FROM jl WHERE v > 0) jl"
            + " JOIN (SELECT * FROM jr WHERE name <> 'z') jr ON jl.k = jr.k AND jr.w > 1",
        "(\"v\" > 0.0)",
        "(NOT (\"name\" = 'z')) AND (\"w\" > 1.00)");
    pushed(
        "SELECT jl.id, jr.id FROM jl LEFT JOIN jr ON jl.k = jr.k AND jl.id < jr.id", "LEFT OUTER");
    pushed("SELECT jl.id, jr.id FROM jl JOIN jr ON jl.name <=> jr.name", "INNER JOIN");
    pushed(
        "SELECT jl.id, jr.id FROM jl LEFT JOIN jr ON jl.name = jr.name AND jr.name = 'it''s'",
        "'it''s'");
  }

  @Test
  void aSelfJoinAndAJoinOfThreeReadsAreOneQuery() {
    pushed(
        "SELECT a.id, b.id FROM jl a JOIN jl b ON a.k = b.k AND a.id < b.id", "jl INNER JOIN jl");
    pushed(
        "SELECT jl.id, jr.id, jx.tag FROM jl JOIN jr ON jl.k = jr.k JOIN jx ON jr.k = jx.k",
        "(jl INNER JOIN jr ON k = k_1) INNER JOIN jx ON k_1 = k");
  }

  @Test
  void anAggregateAndATopNOverAPushedJoinArePushedToo() {
    String grouped =
        sameRows("SELECT jl.k, count(*), sum(jr.w) FROM jl JOIN jr ON jl.k = jr.k GROUP BY jl.k");
    assertThat(grouped).contains("PushedJoin: [").contains("PushedAggregates: [");
    String top =
        sameRows(
            "SELECT jl.id, jr.id FROM jl JOIN jr ON jl.k = jr.k ORDER BY jl.id, jr.id LIMIT 3");
    assertThat(top).contains("PushedJoin: [").contains("PushedTopN: ");
  }

  @Test
  void aJoinThatCannotBeWrittenOrOfOtherConnectionsStaysWithSpark() {
    String function = sameRows("SELECT jl.id FROM jl JOIN jr ON upper(jl.name) = jr.name");
    assertThat(function).doesNotContain("PushedJoin");
    read("jr").option("queryTimeout", "1h").load().createOrReplaceTempView("jr_other");
    String other = sameRows("SELECT jl.id, o.id FROM jl JOIN jr_other o ON jl.k = o.k");
    assertThat(other).doesNotContain("PushedJoin");
  }
}
