package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.RowValues;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.math.BigDecimal;
import java.net.ServerSocket;
import java.sql.Connection;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reads through the connector from the embedded DuckDB Flight SQL server, compared with DuckDB's
 * own answers.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class FlightSqlReadTest {
  private static final long BIG_ROWS = 1_000_000L;

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).endpoints(2).lineitemRows(BIG_ROWS));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static Dataset<Row> read(String uri, String query) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", uri)
        .option("query", query)
        .load();
  }

  private static void assertSameAsDuckDb(DuckDbFlightSqlServer source, String sql)
      throws Exception {
    List<Row> rows = read(source.uri(), sql).collectAsList();
    try (Connection connection = source.newConnection()) {
      List<List<Object>> expected = RowValues.fromJdbc(connection, sql);
      assertThat(RowValues.fromSpark(rows)).isEqualTo(expected);
    }
  }

  @ParameterizedTest(name = "{0} endpoint(s)")
  @ValueSource(ints = {1, 2, 4})
  void fullScansEqualDuckDbsOwnAnswer(int endpoints) throws Exception {
    try (DuckDbFlightSqlServer small =
        DuckDbFlightSqlServer.builder()
            .port(0)
            .endpoints(endpoints)
            .lineitemRows(30_000)
            .batchRows(4096)
            .start()) {
      Dataset<Row> lineitem =
          read(small.uri(), "SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber");
      assertThat(lineitem.rdd().getNumPartitions()).isEqualTo(endpoints);
      assertSameAsDuckDb(small, "SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber");
      assertSameAsDuckDb(small, "SELECT * FROM types_demo ORDER BY id");
    }
  }

  @Test
  void typesDemoColumnsReadAsTheirSparkTypes() {
    StructType schema = read(duckDb.uri(), "SELECT * FROM types_demo").schema();
    assertThat(schema.apply("c_tinyint").dataType()).isEqualTo(DataTypes.ByteType);
    assertThat(schema.apply("c_smallint").dataType()).isEqualTo(DataTypes.ShortType);
    assertThat(schema.apply("c_int").dataType()).isEqualTo(DataTypes.IntegerType);
    assertThat(schema.apply("c_bigint").dataType()).isEqualTo(DataTypes.LongType);
    assertThat(schema.apply("c_float").dataType()).isEqualTo(DataTypes.FloatType);
    assertThat(schema.apply("c_double").dataType()).isEqualTo(DataTypes.DoubleType);
    assertThat(schema.apply("c_dec_short").dataType())
        .isEqualTo(DataTypes.createDecimalType(10, 2));
    assertThat(schema.apply("c_dec_long").dataType())
        .isEqualTo(DataTypes.createDecimalType(38, 10));
    assertThat(schema.apply("c_varchar").dataType()).isEqualTo(DataTypes.StringType);
    assertThat(schema.apply("c_blob").dataType()).isEqualTo(DataTypes.BinaryType);
    assertThat(schema.apply("c_bool").dataType()).isEqualTo(DataTypes.BooleanType);
    assertThat(schema.apply("c_date").dataType()).isEqualTo(DataTypes.DateType);
    assertThat(schema.apply("c_ts").dataType()).isEqualTo(DataTypes.TimestampNTZType);
    assertThat(schema.apply("c_tstz").dataType()).isEqualTo(DataTypes.TimestampType);
  }

  @Test
  void nullsInEveryColumn() {
    Row allNull =
        read(duckDb.uri(), "SELECT * FROM types_demo WHERE c_int IS NULL ORDER BY id LIMIT 1")
            .first();
    for (int i = 1; i < allNull.length(); i++) {
      assertThat(allNull.isNullAt(i)).as("column %s", allNull.schema().fields()[i].name()).isTrue();
    }
  }

  @Test
  void emptyResultHasTheSchemaAndNoRows() {
    Dataset<Row> empty =
        read(duckDb.uri(), "SELECT l_orderkey, l_comment FROM lineitem WHERE l_orderkey < 0");
    assertThat(empty.schema().fieldNames()).containsExactly("l_orderkey", "l_comment");
    assertThat(empty.collectAsList()).isEmpty();
  }

  @Test
  void aMillionRowScan() throws Exception {
    Dataset<Row> lineitem =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", duckDb.uri())
            .option("dbtable", "lineitem")
            .load();
    Row totals =
        lineitem
            .selectExpr("count(*)", "sum(l_quantity)", "sum(length(l_comment))", "max(l_shipdate)")
            .first();
    assertThat(totals.getLong(0)).isEqualTo(BIG_ROWS);
    List<List<Object>> expected;
    try (Connection connection = duckDb.server().newConnection()) {
      expected =
          RowValues.fromJdbc(
              connection,
              "SELECT count(*), sum(l_quantity), sum(length(l_comment)), max(l_shipdate) FROM lineitem");
    }
    assertThat(RowValues.fromSpark(List.of(totals))).isEqualTo(expected);
  }

  @Test
  void temporaryViewUsingFlightsql() {
    spark
        .session()
        .sql(
            "CREATE OR REPLACE TEMPORARY VIEW demo USING flightsql OPTIONS (uri '"
                + duckDb.uri()
                + "', dbtable 'types_demo')");
    Row row = spark.session().sql("SELECT count(*), max(c_bigint) FROM demo WHERE c_bool").first();
    assertThat(row.getLong(0)).isPositive();
    assertThat(spark.session().table("demo").columns()).contains("c_varchar", "c_tstz");
  }

  @Test
  void sessionConfigurationSuppliesTheUri() {
    spark.session().conf().set("spark.datasource.flightsql.uri", duckDb.uri());
    try {
      Dataset<Row> df =
          spark.session().read().format("flightsql").option("query", "SELECT 42 AS answer").load();
      assertThat(df.first().getInt(0)).isEqualTo(42);
    } finally {
      spark.session().conf().unset("spark.datasource.flightsql.uri");
    }
  }

  @Test
  void explicitOptionsBeatTheSessionConfiguration() {
    spark.session().conf().set("spark.datasource.flightsql.uri", "grpc://127.0.0.1:1");
    spark.session().conf().set("spark.datasource.flightsql.query", "SELECT 7 AS seven");
    try {
      Dataset<Row> df =
          spark.session().read().format("flightsql").option("Uri", duckDb.uri()).load();
      assertThat(df.first().getInt(0)).isEqualTo(7);
    } finally {
      spark.session().conf().unset("spark.datasource.flightsql.uri");
      spark.session().conf().unset("spark.datasource.flightsql.query");
    }
  }

  @Test
  void stringsAndDecimalsSurviveZeroCopyReads() {
    List<Row> rows =
        read(
                duckDb.uri(),
                "SELECT 'ünïcødé ✓' AS s, CAST(-12345.67 AS DECIMAL(10,2)) AS d, CAST('1000000000000000000000000000000.25' AS DECIMAL(38,2)) AS big")
            .collectAsList();
    assertThat(rows.get(0).getString(0)).isEqualTo("ünïcødé ✓");
    assertThat(rows.get(0).getDecimal(1)).isEqualByComparingTo(new BigDecimal("-12345.67"));
    assertThat(rows.get(0).getDecimal(2))
        .isEqualByComparingTo(new BigDecimal("1000000000000000000000000000000.25"));
  }

  @Test
  void missingUriNamesTheOption() {
    assertThatThrownBy(
            () -> spark.session().read().format("flightsql").option("query", "SELECT 1").load())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Option 'uri' is required");
  }

  @Test
  void queryAndDbtableTogetherAreRefused() {
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .read()
                    .format("flightsql")
                    .option("uri", duckDb.uri())
                    .option("query", "SELECT 1")
                    .option("dbtable", "lineitem")
                    .load())
        .hasMessageStartingWith("Options 'dbtable' and 'query' cannot be used together");
  }

  @Test
  void malformedUriNamesTheOptionAndTheExpectedForm() {
    assertThatThrownBy(() -> read("localhost:31337", "SELECT 1"))
        .hasMessageContaining("Invalid value 'localhost:31337' for option 'uri'")
        .hasMessageContaining("grpc+tls://host:port");
  }

  @Test
  void badSqlCarriesTheServersMessage() {
    assertThatThrownBy(() -> read(duckDb.uri(), "SELEC nonsense FROM nowhere"))
        .hasMessageStartingWith("[flightsql] ")
        .hasMessageContaining("failed for " + duckDb.uri())
        .hasMessageContaining("INVALID_ARGUMENT")
        .hasMessageContaining("syntax error");
  }

  @Test
  void unknownTableCarriesTheServersMessage() {
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .read()
                    .format("flightsql")
                    .option("uri", duckDb.uri())
                    .option("dbtable", "no_such_table")
                    .load())
        .hasMessageContaining("no_such_table");
  }

  @Test
  void unsupportedTypeFailsAtPlanningNamingTheColumn() {
    assertThatThrownBy(
            () ->
                read(
                    duckDb.uri(),
                    "SELECT 1 AS ok, union_value(s := 'x')::UNION(i INT, s VARCHAR) AS u"))
        .hasMessageStartingWith("Column 'u' has Arrow type Union(")
        .hasMessageContaining("its members have different types (int and string)");
  }

  @Test
  void stoppedServerIsReportedAsUnavailableWithTheUri() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    String uri = "grpc://127.0.0.1:" + port;
    assertThatThrownBy(() -> read(uri, "SELECT 1"))
        .hasMessageStartingWith("[flightsql] GetSchema failed for " + uri + ": UNAVAILABLE")
        .hasMessageContaining("option 'uri'");
  }

  @Test
  void serverStoppedBetweenPlanningAndReadingFailsTheJobWithTheRpc() throws Exception {
    DuckDbFlightSqlServer doomed = DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).start();
    String uri = doomed.uri();
    Dataset<Row> df = read(uri, "SELECT * FROM types_demo");
    doomed.close();
    assertThatThrownBy(df::collectAsList)
        .hasMessageContaining("[flightsql] PollFlightInfo failed for " + uri + ": UNAVAILABLE");
  }

  @Test
  void serverErrorMidStreamFailsTheJobWithTheServersMessage() {
    // Row 300,000 fails a cast while the server is already streaming: the task must fail with the
    // server's own message rather than return a truncated result.
    Dataset<Row> df =
        read(
            duckDb.uri(),
            "SELECT i, CASE WHEN i < 300000 THEN i::VARCHAR ELSE CAST('boom' || i AS INTEGER)::VARCHAR END AS v"
                + " FROM range(400000) t(i)");
    assertThatThrownBy(() -> df.write().format("noop").mode("overwrite").save())
        .hasStackTraceContaining("[flightsql] DoGet failed for " + duckDb.uri())
        .hasStackTraceContaining("boom300000");
  }
}
