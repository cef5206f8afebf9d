package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.LogCapture;
import io.flightsql.spark.testing.SparkSessionExtension;
import io.flightsql.spark.testing.StageMetrics;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Writes through the connector into the embedded DuckDB server, read back value for value, with
 * every save mode and both write methods. The session allows a task four attempts, so a failed task
 * is retried as on a cluster.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class FlightSqlWriteTest {
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).lineitemRows(0));

  /** Up to 4 attempts of a task, and a session zone whose offsets differ from UTC. */
  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark =
      SparkSessionExtension.local()
          .master("local[2,4]")
          .config("spark.sql.session.timeZone", "America/Los_Angeles");

  /** Every Spark type a read can produce, with NULLs and extremes, as Spark SQL computes them. */
  private static final String ALL_TYPES =
      "SELECT id,"
          + " CAST(id % 2 = 0 AS BOOLEAN) AS b,"
          + " CAST(IF(id = 1, 127, -128) AS TINYINT) AS i8,"
          + " CAST(IF(id = 1, 32767, -32768) AS SMALLINT) AS i16,"
          + " CAST(IF(id = 1, 2147483647, -2147483648) AS INT) AS i32,"
          + " IF(id = 1, 9223372036854775807L, -9223372036854775808L) AS i64,"
          + " CAST(IF(id = 1, 'NaN', '-Infinity') AS FLOAT) AS f32,"
          + " IF(id = 1, 1.0E308D, -0.0D) AS f64,"
          + " CAST(IF(id = 1, 123456.78, -0.01) AS DECIMAL(10,2)) AS d10,"
          + " CAST(IF(id = 1, '9999999999999999999999999999.9999999999', '-1.5') AS DECIMAL(38,10)) AS d38,"
          + " IF(id = 1, 'héllo, wörld', '') AS s,"
          + " IF(id = 1, X'00FF10', X'') AS bin,"
          + " IF(id = 1, DATE'0001-01-01', DATE'9999-12-31') AS dt,"
          + " IF(id = 1, TIMESTAMP'1969-12-31 23:59:59.999999Z', TIMESTAMP'2024-02-29 12:00:00Z') AS ts,"
          + " IF(id = 1, TIMESTAMP_NTZ'1900-01-01 00:00:00.5', TIMESTAMP_NTZ'2038-01-19 03:14:08') AS ntz,"
          + " IF(id = 1, array(1, NULL, 3), array()) AS arr,"
          + " IF(id = 1, named_struct('x', 1.5D, 'y', 'a'), named_struct('x', CAST(NULL AS DOUBLE), 'y', CAST(NULL AS STRING))) AS st,"
          + " IF(id = 1, map('k', 1, 'j', CAST(NULL AS INT)), map()) AS m"
          + " FROM range(1, 3)"
          + " UNION ALL SELECT 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
          + " NULL, NULL, NULL, NULL, NULL, NULL";

  private static Dataset<Row> allTypes() {
    return spark.session().sql(ALL_TYPES).repartition(2);
  }

  private static org.apache.spark.sql.DataFrameWriter<Row> writer(Dataset<Row> df, String table) {
    return df.write().format("flightsql").option("uri", duckDb.uri()).option("dbtable", table);
  }

  private static Dataset<Row> readBack(String table) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("query", "SELECT * FROM " + table + " ORDER BY 1")
        .load();
  }

  private static List<String> sorted(Dataset<Row> df) {
    List<String> out = new ArrayList<>();
    for (Row row : df.orderBy(df.columns()[0]).collectAsList()) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < row.length(); i++) {
        Object value = row.get(i);
        values.add(
            value instanceof byte[]
                ? java.util.HexFormat.of().formatHex((byte[]) value)
                : String.valueOf(value));
      }
      out.add(values.toString());
    }
    return out;
  }

  private static long count(String sql) throws Exception {
    try (Connection c = duckDb.server().newConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @ParameterizedTest(name = "writeMethod={0}")
  @ValueSource(strings = {"ingest", "prepared"})
  void everyTypeRoundTripsValueForValue(String method) {
    String table = "all_types_" + method;
    writer(allTypes(), table).option("writeMethod", method).save();
    Dataset<Row> back = readBack(table);
    assertThat(back.schema().simpleString()).isEqualTo(allTypes().schema().simpleString());
    assertThat(sorted(back)).isEqualTo(sorted(allTypes()));
  }

  @Test
  void errorIfExistsRefusesAnExistingTableBeforeAnyTaskRuns() {
    writer(spark.session().range(3).toDF(), "exists_already").save();
    assertThatThrownBy(() -> writer(spark.session().range(5).toDF(), "exists_already").save())
        .hasMessageContaining(
            "[flightsql] Table \"exists_already\" already exists on " + duckDb.uri())
        .hasMessageContaining("Use mode 'append' to add rows, 'overwrite' to replace them");
    assertThat(readBack("exists_already").count()).isEqualTo(3);
  }

  @Test
  void sessionConfigurationSuppliesOptionsAndExplicitOptionsBeatIt() throws Exception {
    spark.session().conf().set("spark.datasource.flightsql.uri", "grpc://127.0.0.1:1");
    spark.session().conf().set("spark.datasource.flightsql.dbtable", "from_session_conf");
    try {
      spark
          .session()
          .range(2)
          .toDF()
          .write()
          .format("flightsql")
          .option("URI", duckDb.uri())
          .save();
    } finally {
      spark.session().conf().unset("spark.datasource.flightsql.uri");
      spark.session().conf().unset("spark.datasource.flightsql.dbtable");
    }
    assertThat(count("SELECT count(*) FROM from_session_conf")).isEqualTo(2);
  }

  @Test
  void appendCreatesTheTableWhenMissingThenAdds() {
    writer(spark.session().range(3).toDF(), "appended").mode("append").save();
    writer(spark.session().range(3, 5).toDF(), "appended").mode("append").save();
    assertThat(readBack("appended").count()).isEqualTo(5);
  }

  /**
   * An existing table's columns are matched by name, in any order and ignoring case, and the
   * statements use the table's own spelling of the table and of each column.
   */
  @ParameterizedTest
  @ValueSource(strings = {"ingest", "prepared"})
  void appendMatchesColumnsByNameInAnyOrderIgnoringCase(String method) throws Exception {
    String table = "ByName_" + method;
    duckDb
        .server()
        .execute(
            "CREATE TABLE \""
                + table
                + "\" (\"ID\" INTEGER NOT NULL, \"Name\" VARCHAR, score DOUBLE)");
    Dataset<Row> df = spark.session().sql("SELECT 2.5D AS SCORE, 1 AS id, 'ann' AS name");
    writer(df, table.toLowerCase(java.util.Locale.ROOT))
        .option("writeMethod", method)
        .mode("append")
        .save();
    Dataset<Row> missingNullable = spark.session().sql("SELECT 2 AS Id");
    writer(missingNullable, table).option("writeMethod", method).mode("append").save();
    assertThat(sorted(readBack("\"" + table + "\"")))
        .containsExactly("[1, ann, 2.5]", "[2, null, null]");

    writer(spark.session().sql("SELECT 'bob' AS NAME, 9 AS iD"), table)
        .option("writeMethod", method)
        .option("truncate", "true")
        .mode("overwrite")
        .save();
    assertThat(sorted(readBack("\"" + table + "\""))).containsExactly("[9, bob, null]");
  }

  @Test
  void columnsTheTableLacksOrNotNullColumnsTheDataFrameLacksFailBeforeAnyTask() throws Exception {
    duckDb.server().execute("CREATE TABLE matched (id INTEGER NOT NULL, name VARCHAR)");
    duckDb.server().execute("INSERT INTO matched VALUES (1, 'kept')");
    assertThatThrownBy(
            () ->
                writer(spark.session().sql("SELECT 2 AS id, 'x' AS nmae, 3 AS extra"), "matched")
                    .mode("append")
                    .save())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Table \"matched\" has no column named 'nmae', 'extra'")
        .hasMessageContaining("its columns are 'id', 'name'");
    assertThatThrownBy(
            () ->
                writer(spark.session().sql("SELECT 'y' AS name"), "matched").mode("append").save())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has NOT NULL column 'id', which the DataFrame does not have");
    assertThatThrownBy(
            () ->
                writer(spark.session().sql("SELECT 'y' AS name"), "matched")
                    .option("truncate", "true")
                    .mode("overwrite")
                    .save())
        .hasMessageContaining("has NOT NULL column 'id'");
    assertThat(sorted(readBack("matched"))).containsExactly("[1, kept]");

    spark.session().conf().set("spark.sql.caseSensitive", "true");
    try {
      assertThatThrownBy(
              () -> writer(spark.session().sql("SELECT 3 AS ID"), "matched").mode("append").save())
          .hasMessageContaining("has no column named 'ID'")
          .hasMessageContaining("with case (spark.sql.caseSensitive is true)");
    } finally {
      spark.session().conf().unset("spark.sql.caseSensitive");
    }
    assertThat(sorted(readBack("matched"))).containsExactly("[1, kept]");
  }

  @Test
  void ignoreLeavesAnExistingTableAlone() {
    writer(spark.session().range(2).toDF(), "ignored").mode("ignore").save();
    writer(spark.session().range(10).toDF(), "ignored").mode("ignore").save();
    assertThat(readBack("ignored").count()).isEqualTo(2);
  }

  @Test
  void overwriteReplacesTheTableOrWithTruncateKeepsItsDefinition() throws Exception {
    duckDb.server().execute("CREATE TABLE kept (id BIGINT NOT NULL, note VARCHAR DEFAULT 'x')");
    writer(spark.session().range(4).toDF(), "kept").mode("append").save();
    writer(spark.session().range(2).toDF(), "kept")
        .mode("overwrite")
        .option("truncate", "true")
        .save();
    assertThat(readBack("kept").count()).isEqualTo(2);
    assertThat(readBack("kept").columns()).containsExactly("id", "note");

    Dataset<Row> other = spark.session().range(3).selectExpr("id", "CAST(id AS STRING) AS label");
    writer(other, "kept").mode("overwrite").save();
    assertThat(readBack("kept").columns()).containsExactly("id", "label");
    assertThat(readBack("kept").count()).isEqualTo(3);
  }

  @Test
  void aRowTheServerRefusesFailsTheTaskWithTheServersMessageAndCommitsNothing() throws Exception {
    duckDb.server().execute("CREATE TABLE strict (id BIGINT, name VARCHAR NOT NULL)");
    Dataset<Row> df =
        spark
            .session()
            .range(0, 1000, 1, 1)
            .selectExpr("id", "IF(id = 700, NULL, CAST(id AS STRING)) AS name");
    assertThatThrownBy(() -> writer(df, "strict").mode("append").save())
        .hasStackTraceContaining("[flightsql] DoPut")
        .hasStackTraceContaining("NOT NULL");
    assertThat(count("SELECT count(*) FROM strict")).isZero();
  }

  @Test
  void unwritableTypeFailsBeforeAnyTaskNamingTheColumn() {
    Dataset<Row> df = spark.session().sql("SELECT 1 AS id, parse_json('{\"a\": 1}') AS doc");
    assertThatThrownBy(() -> writer(df, "never_created").save())
        .hasMessageContaining("column `doc` of the type \"VARIANT\"");
    assertThat(
            spark
                .session()
                .read()
                .format("flightsql")
                .option("uri", duckDb.uri())
                .option(
                    "query",
                    "SELECT count(*) FROM information_schema.tables WHERE table_name = 'never_created'")
                .load()
                .first()
                .getLong(0))
        .isZero();
  }

  /** A UDF that fails the first attempt of partition 1 after half its rows were sent. */
  public static final class FailFirstAttempt implements UDF1<Long, Long> {
    @Override
    public Long call(Long id) {
      TaskContext task = TaskContext.get();
      if (task.partitionId() == 1 && task.attemptNumber() == 0 && id % 100_000 == 50_000) {
        throw new IllegalStateException("injected failure at row " + id);
      }
      return id;
    }
  }

  @ParameterizedTest(name = "atomic={0}")
  @ValueSource(booleans = {true, false})
  void aRetriedTaskLeavesTheInputExactlyOnce(boolean atomic) throws Exception {
    spark
        .session()
        .udf()
        .register("fail_first_attempt", new FailFirstAttempt(), DataTypes.LongType);
    String table = "retried_" + atomic;
    // Small batches, so the failing attempt has sent rows before it fails.
    Dataset<Row> df =
        spark.session().range(0, 200_000, 1, 2).selectExpr("fail_first_attempt(id) AS id");
    writer(df, table).option("atomic", String.valueOf(atomic)).option("batchSize", "1000").save();
    assertThat(count("SELECT count(*) FROM " + table)).isEqualTo(200_000);
    assertThat(count("SELECT count(DISTINCT id) FROM " + table)).isEqualTo(200_000);
    assertThat(
            count(
                "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '"
                    + table
                    + "_flightsql_%'"))
        .as("staging tables left")
        .isZero();
  }

  /**
   * Where no staging table can be made for the rows (dialect {@code sqlite} has no type for a
   * TIMESTAMP, and a prepared INSERT cannot create one), {@code atomic=true} fails before any task
   * runs naming the column, and {@code auto} writes into the table directly and says so once.
   */
  @Test
  void withoutAStagingTableForItsColumnsAutoWritesDirectlyAndTrueRefuses() throws Exception {
    duckDb.server().execute("CREATE TABLE stamped (id BIGINT, seen TIMESTAMPTZ)");
    Dataset<Row> df =
        spark.session().sql("SELECT 1L AS id, TIMESTAMP'2024-01-02 03:04:05Z' AS seen");
    assertThatThrownBy(
            () ->
                writer(df, "stamped")
                    .option("dialect", "sqlite")
                    .option("writeMethod", "prepared")
                    .option("atomic", "true")
                    .mode("append")
                    .save())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Option 'atomic' is 'true', which needs a staging table for each task's rows, and none"
                + " can be created: Column 'seen' has Spark type timestamp, for which"
                + " spark-flightsql knows no column type in dialect 'sqlite'. Cast the column,"
                + " choose another 'dialect', or set option 'atomic' to 'auto' or 'false' to"
                + " write into the table directly.");
    String log;
    try (LogCapture capture = LogCapture.start()) {
      writer(df, "stamped")
          .option("dialect", "sqlite")
          .option("writeMethod", "prepared")
          .mode("append")
          .save();
      log = capture.text();
    }
    assertThat(log)
        .contains("without staging tables (Column 'seen' has Spark type timestamp")
        .contains("tasks write into the table directly")
        .contains("Set option 'atomic' to 'false' to choose this yourself");
    assertThat(count("SELECT count(*) FROM stamped")).isEqualTo(1);
  }

  @Test
  void rowsWrittenAreReportedAsTheTasksOutput() throws Exception {
    try (StageMetrics stages = StageMetrics.record(spark.session())) {
      writer(spark.session().range(0, 12_345, 1, 3).toDF(), "metered").save();
      assertThat(stages.outputRecords()).isEqualTo(12_345);
      assertThat(stages.accumulator("rows written to the Flight SQL server")).contains(12_345L);
    }
  }

  /**
   * A staged append into an existing table keeps every TIMESTAMP and TIMESTAMP_NTZ value to the
   * microsecond, over several batches of two tasks: neither the staging tables, nor their upload,
   * nor the commit's {@code INSERT ... SELECT} changes a timestamp's unit (microseconds read as
   * nanoseconds would put 1992 in 1970). Checked in DuckDB by each row's epoch microseconds, and
   * through the connector against Spark's own values.
   */
  @ParameterizedTest(name = "writeMethod={0}")
  @ValueSource(strings = {"ingest", "prepared"})
  void aStagedAppendKeepsTimestampsToTheMicrosecond(String method) throws Exception {
    String table = "staged_stamps_" + method;
    duckDb
        .server()
        .execute("CREATE TABLE " + table + " (id BIGINT, ts TIMESTAMPTZ, ntz TIMESTAMP)");
    Dataset<Row> df =
        spark
            .session()
            .range(0, 5_000, 1, 2)
            .selectExpr(
                "id",
                "TIMESTAMP'1992-01-02 00:00:00Z'"
                    + " + make_dt_interval(0, 0, 0, CAST(id * 13.000001 AS DECIMAL(18, 6))) AS ts",
                "TIMESTAMP_NTZ'1992-01-02 00:00:00'"
                    + " + make_dt_interval(0, 0, 0, CAST(id * 13.000001 AS DECIMAL(18, 6))) AS ntz");
    writer(df, table)
        .option("writeMethod", method)
        .option("atomic", "true")
        .option("batchSize", "1000")
        .mode("append")
        .save();
    String exact = "694310400000000 + id * 13000001";
    assertThat(
            count(
                "SELECT count(*) FROM "
                    + table
                    + " WHERE epoch_us(ts) = "
                    + exact
                    + " AND epoch_us(ntz) = "
                    + exact))
        .isEqualTo(5_000);
    assertThat(sorted(readBack(table))).isEqualTo(sorted(df));
  }
}
