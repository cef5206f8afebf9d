package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.RowValues;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ExplainMode;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pushed aggregates against the embedded DuckDB server give Spark's own answer, value and type:
 * every numeric type, COUNT, SUM, AVG, MIN and MAX, at the type's edges and over NULLs, with and
 * without GROUP BY, each compared with Spark computing it over the same read with pushdown off.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class PushedAggregateTypesTest {
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).endpoints(1).lineitemRows(10));

  @RegisterExtension
  @Order(2)
  static final EmbeddedServerExtension twoEndpoints =
      EmbeddedServerExtension.duckDb(server -> server.port(0).endpoints(2).lineitemRows(10));

  @RegisterExtension
  @Order(3)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  /** Each numeric column: its DuckDB type, and its values (SQL literals), edges and NULLs. */
  private static final String[][] COLUMNS = {
    {"c_tinyint", "TINYINT", "-128", "127", "127", "NULL", "1"},
    {"c_smallint", "SMALLINT", "-32768", "32767", "30000", "30000", "NULL"},
    {"c_int", "INTEGER", "-2147483648", "2147483647", "2147483647", "1", "NULL"},
    {"c_bigint", "BIGINT", "-9223372036854775808", "9223372036854775807", "1", "-1", "NULL"},
    {
      "c_real",
      "REAL",
      "-3.4028234663852886e38",
      "3.4028234663852886e38",
      "3.4028234663852886e38",
      "0.5",
      "NULL"
    },
    // Past DOUBLE's range in any order of summing: Spark's sum is an infinity, and so is DuckDB's.
    {
      "c_double", "DOUBLE", "1.7976931348623157e308", "1.7976931348623157e308", "0.25", "-2", "NULL"
    },
    {"c_dec", "DECIMAL(9,2)", "-9999999.99", "9999999.99", "9999999.99", "0.01", "NULL"},
    {"c_wide", "DECIMAL(30,4)", "-99999999999999999999999999.9999", "1.5", "2.25", "NULL", "3"},
  };

  private static final String[] FUNCTIONS = {"count", "sum", "avg", "min", "max"};

  @BeforeAll
  static void tables() {
    for (DuckDbFlightSqlServer server : List.of(duckDb.server(), twoEndpoints.server())) {
      StringBuilder create = new StringBuilder("CREATE TABLE nums (g INTEGER");
      for (String[] column : COLUMNS) {
        create.append(", ").append(column[0]).append(' ').append(column[1]);
      }
      server.execute(create.append(')').toString());
      for (int row = 2; row < COLUMNS[0].length; row++) {
        StringBuilder insert = new StringBuilder("INSERT INTO nums VALUES (" + (row % 2));
        for (String[] column : COLUMNS) {
          insert.append(", ").append(column[row]);
        }
        server.execute(insert.append(')').toString());
      }
      server.execute("CREATE TABLE ints (x INTEGER, s SMALLINT)");
      server.execute("INSERT INTO ints VALUES (1, 30000), (2, 30000)");
      server.execute("CREATE TABLE empty_nums AS SELECT * FROM nums WHERE false");
    }
  }

  private static Dataset<Row> read(DuckDbFlightSqlServer server, String table, boolean pushdown) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .option("dbtable", table)
        .option("pushDownAggregate", Boolean.toString(pushdown))
        .option("pushDownPredicate", Boolean.toString(pushdown))
        .load();
  }

  private static String plan(Dataset<Row> df) {
    return df.queryExecution().explainString(ExplainMode.fromString("formatted"));
  }

  /** Runs {@code select} over a table pushed and not; asserts same values and types; the plan. */
  private static String sameAnswer(
      DuckDbFlightSqlServer server, String table, String select, String groupBy) {
    read(server, table, true).createOrReplaceTempView("pushed");
    read(server, table, false).createOrReplaceTempView("unpushed");
    String tail = groupBy == null ? "" : " GROUP BY " + groupBy + " ORDER BY " + groupBy;
    String lead = groupBy == null ? "" : groupBy + ", ";
    Dataset<Row> pushed = spark.session().sql("SELECT " + lead + select + " FROM pushed" + tail);
    Dataset<Row> unpushed =
        spark.session().sql("SELECT " + lead + select + " FROM unpushed" + tail);
    assertThat(RowValues.fromSpark(pushed.collectAsList()))
        .as(select + " over " + table)
        .isEqualTo(RowValues.fromSpark(unpushed.collectAsList()));
    assertThat(types(pushed)).as(select).isEqualTo(types(unpushed));
    assertThat(plan(unpushed)).doesNotContain("PushedAggregates");
    return plan(pushed);
  }

  private static List<String> types(Dataset<Row> df) {
    List<String> types = new ArrayList<>();
    for (StructField field : df.schema().fields()) {
      types.add(field.dataType().simpleString());
    }
    return types;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "c_tinyint",
        "c_smallint",
        "c_int",
        "c_bigint",
        "c_real",
        "c_double",
        "c_dec",
        "c_wide"
      })
  void everyAggregateOfEveryNumericTypeIsSparksOwn(String column) {
    List<String> all = new ArrayList<>();
    for (String function : FUNCTIONS) {
      String select = function + "(" + column + ")";
      all.add(select);
      sameAnswer(duckDb.server(), "nums", select, null);
      sameAnswer(duckDb.server(), "nums", select, "g");
    }
    String together = String.join(", ", all);
    sameAnswer(twoEndpoints.server(), "nums", together, null);
    sameAnswer(duckDb.server(), "empty_nums", together, null);
    sameAnswer(duckDb.server(), "empty_nums", together, "g");
  }

  @Test
  void averageOfIntegersIsADoubleComputedByTheServer() {
    String plan = sameAnswer(duckDb.server(), "ints", "avg(x)", null);
    assertThat(plan)
        .contains("PushedAggregates: [AVG(x)]")
        .contains("(complete)")
        .contains("AVG(CAST(\"x\" AS DOUBLE PRECISION))");
    assertThat(spark.session().sql("SELECT avg(x) FROM pushed").collectAsList().get(0).getDouble(0))
        .isEqualTo(1.5);
  }

  @Test
  void sumOfSmallintsIsABigintComputedByTheServer() {
    String plan = sameAnswer(duckDb.server(), "ints", "sum(s)", null);
    assertThat(plan)
        .contains("PushedAggregates: [SUM(s)]")
        .contains("CAST(SUM(CAST(\"s\" AS BIGINT)) AS BIGINT)");
    Row row = spark.session().sql("SELECT sum(s) FROM pushed").collectAsList().get(0);
    assertThat(row.getLong(0)).isEqualTo(60000L);
  }

  @Test
  void whatIsAndIsNotPushedForDecimals() {
    assertThat(sameAnswer(duckDb.server(), "nums", "sum(c_dec)", null))
        .contains("PushedAggregates: [SUM(c_dec)]")
        .contains("AS DECIMAL(19, 2))");
    // DECIMAL(30, 4)'s sum is DECIMAL(38, 4) in Spark, which may overflow where DuckDB's does not.
    assertThat(sameAnswer(duckDb.server(), "nums", "sum(c_wide)", null))
        .doesNotContain("PushedAggregates");
    // Spark divides the server's SUM, typed as its own, by its COUNT, at its own scale.
    assertThat(sameAnswer(duckDb.server(), "nums", "avg(c_dec)", "g"))
        .contains("PushedAggregates: [COUNT(c_dec), SUM(c_dec)]")
        .contains("(complete)");
  }

  @Test
  void countsAreBigintsAndDistinctIsNotPushedOverDoubles() {
    assertThat(sameAnswer(duckDb.server(), "nums", "count(*), count(c_int)", "g"))
        .contains("CAST(COUNT(*) AS BIGINT)");
    assertThat(sameAnswer(duckDb.server(), "nums", "count(DISTINCT c_double)", null))
        .doesNotContain("PushedAggregates");
    assertThat(sameAnswer(duckDb.server(), "nums", "sum(DISTINCT c_int)", null))
        .contains("SUM(DISTINCT CAST(\"c_int\" AS BIGINT))");
  }

  @Test
  void aGlobalAggregateOfSeveralEndpointsIsReadAsOnePartitionOfOneRow() {
    Dataset<Row> df =
        read(twoEndpoints.server(), "nums", true).selectExpr("count(*)", "max(c_int)");
    assertThat(plan(df)).contains("PushedGroupBy: [] (complete)");
    assertThat(df.rdd().getNumPartitions()).isEqualTo(1);
    assertThat(RowValues.fromSpark(df.collectAsList()))
        .isEqualTo(List.of(Arrays.asList(5L, 2147483647L)));
  }
}
