package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.RowValues;
import io.flightsql.spark.testing.SparkSessionExtension;
import io.flightsql.spark.testing.SqlUiMetrics;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Client-side partitioning ({@code partitionColumn}, {@code predicates}) against the embedded
 * DuckDB server with one endpoint per query, as third-party servers have: the union of the
 * partitions is the unpartitioned result, value for value.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class FlightSqlParallelReadTest {
  private static final int ROWS = 1000;

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(
          server -> server.port(0).endpoints(1).lineitemRows(1000).batchRows(128));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void parts() {
    // Every partition column has NULLs, values below the bounds used below and above them; c_skew
    // has nine tenths of its values on one number.
    duckDb
        .server()
        .execute(
            "CREATE TABLE parts AS SELECT"
                + " i AS id,"
                + " CASE WHEN i % 17 = 0 THEN NULL ELSE CAST(i - 100 AS INTEGER) END AS c_int,"
                + " CASE WHEN i % 13 = 0 THEN NULL WHEN i < 900 THEN 5 ELSE i * 1000000000 END AS c_skew,"
                + " CASE WHEN i % 19 = 0 THEN NULL ELSE CAST((i - 100) * 1.25 AS DECIMAL(18, 2)) END AS c_dec,"
                + " CASE WHEN i % 23 = 0 THEN NULL ELSE DATE '2024-01-01' + CAST(i - 50 AS INTEGER) END AS c_date,"
                + " CASE WHEN i % 29 = 0 THEN NULL ELSE TIMESTAMP '2024-01-01 00:00:00'"
                + "   + (i - 50) * INTERVAL 1 HOUR + i * INTERVAL 1 MICROSECOND END AS c_ts,"
                + " CASE WHEN i % 31 = 0 THEN NULL ELSE CAST(TIMESTAMP '2024-01-01 00:00:00'"
                + "   + (i - 50) * INTERVAL 1 HOUR AS TIMESTAMPTZ) END AS c_tstz,"
                + " 'row ' || i AS c_str"
                + " FROM range("
                + ROWS
                + ") t(i)");
  }

  private static DataFrameReader reader(DuckDbFlightSqlServer source) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", source.uri())
        .option("dbtable", "parts");
  }

  private static Dataset<Row> partitioned(
      DuckDbFlightSqlServer source, String column, String lower, String upper, int n) {
    return reader(source)
        .option("partitionColumn", column)
        .option("lowerBound", lower)
        .option("upperBound", upper)
        .option("numPartitions", n)
        .load();
  }

  private static List<List<Object>> sorted(Dataset<Row> rows) {
    return RowValues.fromSpark(rows.orderBy("id").collectAsList());
  }

  private static List<List<Object>> duckDb(String sql) throws Exception {
    try (Connection connection = duckDb.server().newConnection()) {
      return RowValues.fromJdbc(connection, sql);
    }
  }

  @ParameterizedTest(name = "{0} from {1} to {2} in {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        "c_int    | 0                   | 500                       | 4  | 4",
        "c_int    | 0                   | 500                       | 1  | 1",
        "c_int    | 0                   | 3                         | 10 | 3",
        "c_int    | -1000               | 5000                      | 7  | 7",
        "c_skew   | 0                   | 10                        | 3  | 3",
        "c_dec    | 0                   | 500                       | 5  | 5",
        "c_date   | 2024-01-01          | 2024-02-01                | 4  | 4",
        "c_ts     | 2024-01-01 00:00:00 | 2024-01-20 00:00:00       | 3  | 3",
        "c_tstz   | 2024-01-01          | 2024-01-20T00:00:00+02:00 | 3  | 3",
        "id       | 0                   | 999                       | 2  | 2",
      })
  void theUnionOfThePartitionsIsTheWholeResult(
      String column, String lower, String upper, int asked, int expectedPartitions)
      throws Exception {
    Dataset<Row> rows = partitioned(duckDb.server(), column, lower, upper, asked);
    assertThat(rows.rdd().getNumPartitions()).isEqualTo(expectedPartitions);
    List<List<Object>> whole = sorted(reader(duckDb.server()).load());
    assertThat(whole).hasSize(ROWS);
    assertThat(sorted(rows)).isEqualTo(whole);
    assertThat(whole).isEqualTo(duckDb("SELECT * FROM parts ORDER BY id"));
  }

  @Test
  void nullsAndValuesBelowTheBoundsAreInTheFirstPartitionAndValuesAboveInTheLast() {
    Dataset<Row> rows =
        partitioned(duckDb.server(), "c_int", "0", "500", 4)
            .withColumn("part", functions.spark_partition_id());
    Row extremes =
        rows.selectExpr(
                "max(CASE WHEN c_int IS NULL OR c_int < 0 THEN part END)",
                "min(CASE WHEN c_int IS NULL OR c_int < 0 THEN part END)",
                "min(CASE WHEN c_int >= 500 THEN part END)",
                "count(DISTINCT part)")
            .first();
    assertThat(extremes.getInt(0)).isZero();
    assertThat(extremes.getInt(1)).isZero();
    assertThat(extremes.getInt(2)).isEqualTo(3);
    assertThat(extremes.getLong(3)).isEqualTo(4);
  }

  /**
   * The literals of the bounds mean what they say on the server: with strides of exactly one day,
   * each row is in the partition its value falls in (a time zone shift would move rows).
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "c_date | 2024-01-01                | 2024-01-04           | DATE'2024-01-02'"
            + "                  | DATE'2024-01-03'",
        "c_ts   | 2024-01-01 00:00:00       | 2024-01-04 00:00:00  | TIMESTAMP_NTZ'2024-01-02 00:00:00'"
            + " | TIMESTAMP_NTZ'2024-01-03 00:00:00'",
        "c_tstz | 2024-01-01T02:00:00+02:00 | 2024-01-04T00:00:00Z | TIMESTAMP'2024-01-02 00:00:00+00:00'"
            + " | TIMESTAMP'2024-01-03 00:00:00+00:00'",
      })
  void eachRowIsInThePartitionOfItsStride(
      String column, String lower, String upper, String first, String second) {
    Row check =
        partitioned(duckDb.server(), column, lower, upper, 3)
            .withColumn("part", functions.spark_partition_id())
            .selectExpr(
                "count_if(part <> CASE WHEN "
                    + column
                    + " IS NULL OR "
                    + column
                    + " < "
                    + first
                    + " THEN 0 WHEN "
                    + column
                    + " < "
                    + second
                    + " THEN 1 ELSE 2 END)",
                "count_if(part = 1)",
                "count(*)")
            .first();
    assertThat(check.getLong(0)).as("rows in the wrong partition").isZero();
    assertThat(check.getLong(1)).as("rows in the middle partition").isPositive();
    assertThat(check.getLong(2)).isEqualTo(ROWS);
  }

  @Test
  void aQueryIsPartitionedAsAWholeAndNamesMatchAsSparkResolvesThem() throws Exception {
    String query = "SELECT id, c_int AS \"Value\" FROM parts WHERE id < 600";
    for (String column : new String[] {"value", "VALUE", "\"Value\""}) {
      Dataset<Row> rows =
          spark
              .session()
              .read()
              .format("flightsql")
              .option("uri", duckDb.uri())
              .option("query", query)
              .option("partitionColumn", column)
              .option("lowerBound", "100")
              .option("upperBound", "300")
              .option("numPartitions", "3")
              .load();
      assertThat(rows.rdd().getNumPartitions()).isEqualTo(3);
      assertThat(sorted(rows)).isEqualTo(duckDb(query + " ORDER BY id"));
    }
  }

  @Test
  void disjointPredicatesReadEveryRowOnce() throws Exception {
    Dataset<Row> rows =
        reader(duckDb.server())
            .option("predicates", "[\"c_int < 100\", \"c_int >= 100\", \"c_int IS NULL\"]")
            .load();
    assertThat(rows.rdd().getNumPartitions()).isEqualTo(3);
    assertThat(sorted(rows)).isEqualTo(duckDb("SELECT * FROM parts ORDER BY id"));
  }

  @Test
  void overlappingPredicatesReadTheSharedRowsTwiceAsJdbcDoes() throws Exception {
    Dataset<Row> rows =
        reader(duckDb.server())
            .option("predicates", "[\"c_int < 100\", \"c_int < 200 OR c_str = 'row 999'\"]")
            .load();
    assertThat(rows.rdd().getNumPartitions()).isEqualTo(2);
    List<List<Object>> expected = new ArrayList<>(duckDb("SELECT * FROM parts WHERE c_int < 100"));
    expected.addAll(duckDb("SELECT * FROM parts WHERE c_int < 200 OR c_str = 'row 999'"));
    expected.sort((a, b) -> Long.compare((Long) a.get(0), (Long) b.get(0)));
    assertThat(sorted(rows)).isEqualTo(expected);
    assertThat(rows.count()).isEqualTo(200 + 300 + 1 - 12 - 18);
  }

  @Test
  void eachClientPartitionReadsEveryEndpointOfItsOwnQuery() throws Exception {
    try (DuckDbFlightSqlServer several =
        DuckDbFlightSqlServer.builder()
            .port(0)
            .endpoints(3)
            .lineitemRows(1000)
            .batchRows(64)
            .start()) {
      several.execute("CREATE TABLE parts AS SELECT i AS id, i % 100 AS v FROM range(5000) t(i)");
      Dataset<Row> rows = partitioned(several, "v", "0", "100", 4);
      assertThat(rows.rdd().getNumPartitions()).isEqualTo(4);
      List<List<Object>> expected;
      try (Connection connection = several.newConnection()) {
        expected = RowValues.fromJdbc(connection, "SELECT * FROM parts ORDER BY id");
      }
      assertThat(sorted(rows)).isEqualTo(expected);
      // Without partitioning options the server's endpoints are the partitions, as before.
      assertThat(reader(several).load().rdd().getNumPartitions()).isEqualTo(3);
    }
  }

  @Test
  void partitioningErrorsNameTheOption() {
    assertThatThrownBy(() -> partitioned(duckDb.server(), "nope", "0", "10", 2).collectAsList())
        .hasMessageContaining("Invalid value 'nope' for option 'partitionColumn'")
        .hasMessageContaining("the query's result has no such column; its columns are id, c_int");
    assertThatThrownBy(() -> partitioned(duckDb.server(), "c_str", "0", "10", 2).collectAsList())
        .hasMessageContaining(
            "column 'c_str' is string; a partition column must be numeric, date or timestamp");
    assertThatThrownBy(
            () ->
                partitioned(duckDb.server(), "c_date", "2024-01-01", "20240201", 2).collectAsList())
        .hasMessageContaining("Invalid value '20240201' for option 'upperBound'")
        .hasMessageContaining("the partition column is a date: expected yyyy-MM-dd");
    assertThatThrownBy(() -> partitioned(duckDb.server(), "c_int", "10", "0", 2).collectAsList())
        .hasMessageContaining("Option 'lowerBound' (10) is larger than option 'upperBound' (0)");
    assertThatThrownBy(() -> reader(duckDb.server()).option("predicates", "c_int < 3").load())
        .hasMessageContaining("Invalid value 'c_int < 3' for option 'predicates'");
  }

  @Test
  void aConditionTheServerRefusesFailsTheTaskWithTheServersMessage() {
    assertThatThrownBy(
            () ->
                reader(duckDb.server())
                    .option("predicates", "[\"c_int < 3\", \"no_such_column = 1\"]")
                    .load()
                    .collectAsList())
        // The embedded server refuses the query in its PollFlightInfo; if that was the server's
        // first poll in this JVM, the connector tries it once as GetFlightInfo (for servers that
        // refuse a poll they lack with another status than UNIMPLEMENTED), which fails the same.
        .hasStackTraceContaining("FlightInfo failed for grpc://")
        .hasStackTraceContaining("INVALID_ARGUMENT")
        .hasStackTraceContaining("no_such_column");
  }

  /**
   * Pushdown and client partitions together: each partition's query has the pushed filter and its
   * stride's condition, aggregates are pushed only partially (Spark merges the partitions' groups),
   * an offset stays in Spark, and the partition column need not be read. Every answer equals the
   * one read without pushdown and without partitions.
   */
  @Test
  void pushdownComposesWithClientPartitions() {
    Dataset<Row> split = partitioned(duckDb.server(), "c_int", "0", "500", 4);
    Dataset<Row> plain =
        reader(duckDb.server())
            .option("pushDownPredicate", "false")
            .option("pushDownAggregate", "false")
            .option("pushDownOffset", "false")
            .load();

    Dataset<Row> filtered = split.filter("c_str LIKE 'row 1%' AND id >= 100").select("id", "c_str");
    String filteredPlan = filtered.queryExecution().executedPlan().toString();
    assertThat(filteredPlan)
        .contains("PushedFilters: [")
        .contains("Partitioning: partitionColumn=c_int")
        .doesNotContain("c_int#");
    assertThat(filtered.rdd().getNumPartitions()).isEqualTo(4);
    assertThat(sorted(filtered))
        .isEqualTo(sorted(plain.filter("c_str LIKE 'row 1%' AND id >= 100").select("id", "c_str")))
        .hasSize(100);

    Dataset<Row> grouped =
        split
            .groupBy(functions.expr("c_skew"))
            .agg(
                functions.count("*").as("n"),
                functions.sum("id").as("s"),
                functions.max("c_int").as("m"));
    assertThat(grouped.queryExecution().executedPlan().toString())
        .contains("PushedAggregates: [COUNT(*), SUM(id), MAX(c_int)]")
        .contains("(partial)");
    Dataset<Row> groupedPlain =
        plain
            .groupBy(functions.expr("c_skew"))
            .agg(
                functions.count("*").as("n"),
                functions.sum("id").as("s"),
                functions.max("c_int").as("m"));
    assertThat(RowValues.fromSpark(grouped.orderBy("c_skew").collectAsList()))
        .isEqualTo(RowValues.fromSpark(groupedPlain.orderBy("c_skew").collectAsList()));

    Dataset<Row> page = split.orderBy("id").offset(990);
    assertThat(page.queryExecution().executedPlan().toString()).doesNotContain("PushedOffset");
    assertThat(sorted(page)).isEqualTo(sorted(plain.orderBy("id").offset(990))).hasSize(10);
  }

  @Test
  void explainShowsTheClientPartitioning() {
    String plan =
        partitioned(duckDb.server(), "c_int", "0", "500", 4)
            .queryExecution()
            .executedPlan()
            .toString();
    assertThat(plan)
        .contains("partitionColumn=c_int, lowerBound=0, upperBound=500, numPartitions=4");
  }

  @Test
  void rowsAndBytesReceivedAreReportedAsSparkMetrics() throws Exception {
    spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("query", "SELECT id FROM parts")
        .option("partitionColumn", "id")
        .option("lowerBound", "0")
        .option("upperBound", "1000")
        .option("numPartitions", "3")
        .load()
        .write()
        .format("noop")
        .mode("overwrite")
        .save();
    Map<String, Long> metrics =
        latestMetrics(
            "rows received from the Flight SQL server",
            "Arrow bytes received from the Flight SQL server");
    assertThat(metrics.get("rows received from the Flight SQL server")).isEqualTo(ROWS);
    // 8 bytes per BIGINT and a validity bitmap per record batch of at most 128 rows.
    assertThat(metrics.get("Arrow bytes received from the Flight SQL server"))
        .isBetween(8L * ROWS, 8L * ROWS + ROWS / 8 + 3 * 8 * 64);
  }

  /** The named metrics of the latest SQL execution that has them, from the SQL tab's store. */
  private static Map<String, Long> latestMetrics(String... names) throws Exception {
    Map<String, Long> out = new java.util.HashMap<>();
    SqlUiMetrics.latest(spark.session(), names)
        .forEach((name, shown) -> out.put(name, SqlUiMetrics.number(shown)));
    return out;
  }
}
