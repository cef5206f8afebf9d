package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.servers.FreePorts;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What every Flight SQL server must give users of the shaded connector: exact values (NULLs
 * included), server-side filtering and ordering, empty results with their schema, Spark types and
 * names, SQL over a temporary view, and errors that carry the server's own words. A subclass starts
 * one real server and describes it with a {@link ServerQuirks}; each test class gets its own {@code
 * local[2]} SparkSession, and every test ends with a check that the connector holds no Arrow
 * memory.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
// A server that stops answering fails the test instead of hanging the build. Far above the seconds
// a
// test takes, even on two cores shared with the Spark processes of the classes that run beside.
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(ArrowLeakCheckExtension.class)
abstract class FlightSqlContractSuite {
  static final String TABLE = "contract_people";

  /** Rows of {@link #TABLE} in {@link ContractColumn} order. */
  static final List<List<Object>> ROWS =
      List.of(
          Arrays.asList(1L, "alice", 1.5, LocalDateTime.of(2024, 1, 2, 3, 4, 5)),
          Arrays.asList(2L, "bob", null, LocalDateTime.of(1999, 12, 31, 23, 59, 59)),
          Arrays.asList(3L, null, -2.25, null),
          Arrays.asList(4L, "Zoë ✓", 0.0, LocalDateTime.of(1970, 1, 1, 0, 0, 0)),
          Arrays.asList(5L, "it's", 1.0e10, LocalDateTime.of(2038, 1, 19, 3, 14, 8)));

  protected ServerQuirks quirks;

  /**
   * An instance field, which JUnit registers once the class's one instance exists: its session
   * starts after the static server extensions of a subclass, before {@link #startServerAndTable},
   * and stops after {@link #stopServer}.
   */
  @RegisterExtension final SparkSessionExtension sparkSession = SparkSessionExtension.local();

  /** The server under test, described. */
  public ServerQuirks quirks() {
    return quirks;
  }

  /** The test class's local SparkSession. */
  public SparkSession spark() {
    return sparkSession.session();
  }

  /** Starts the server (or finds one an extension started) and describes it. */
  protected abstract ServerQuirks startServer() throws Exception;

  /** Stops what {@link #startServer()} started. */
  protected void stopServer() throws Exception {}

  @BeforeAll
  void startServerAndTable() throws Exception {
    quirks = startServer();
    createContractTable();
  }

  @AfterAll
  void stopTheServer() throws Exception {
    stopServer();
  }

  private void createContractTable() {
    List<List<String>> literals = new ArrayList<>();
    for (List<Object> row : ROWS) {
      List<String> values = new ArrayList<>();
      for (ContractColumn column : ContractColumn.values()) {
        values.add(quirks.literal(column, row.get(column.ordinal())));
      }
      literals.add(values);
    }
    quirks.createTable(TABLE, literals);
  }

  private void createEmptyContractTable(String name) {
    String columns =
        Arrays.stream(ContractColumn.values())
            .map(c -> c.sqlName() + " " + quirks.ddlType(c))
            .collect(Collectors.joining(", "));
    quirks.executeUpdate("CREATE TABLE " + name + " (" + columns + ")");
  }

  /**
   * The contract table read into Spark and written to an empty copy, by each write method the
   * server supports (a prepared INSERT bound to Arrow batches works everywhere), reads back the
   * same.
   */
  @Test
  void writesWhatItReadsIntoACopyThatReadsBackTheSame() {
    Assumptions.assumeFalse(
        quirks.writeMethods().isEmpty(), quirks.name() + " takes no writes through Flight SQL");
    Dataset<Row> people = flightsql().option("dbtable", TABLE).load();
    for (String method : quirks.writeMethods()) {
      String copy = TABLE + "_" + method;
      createEmptyContractTable(copy);
      quirks
          .writable(people)
          .write()
          .format("flightsql")
          .option("uri", quirks.uri())
          .option("dbtable", quirks.reportedName(copy))
          .option("writeMethod", method)
          .mode("append")
          .save();

      List<List<Object>> rows = values(flightsql().option("dbtable", copy).load().collectAsList());
      rows.sort(Comparator.comparingLong(row -> ((Number) row.get(0)).longValue()));
      assertThat(rows)
          .as("written with writeMethod=%s", method)
          .containsExactlyElementsOf(expected(ROWS, ContractColumn.values()));
    }
  }

  /**
   * A DataFrame reads the rows as of its action, never what its schema inference ran: rows another
   * client adds after {@code load()} (here a write of the connector, in sessions of its own) are
   * read by {@code collect()}.
   */
  @Test
  void aReadSeesRowsAddedAfterItsSchemaWasInferred() {
    Assumptions.assumeFalse(
        quirks.writeMethods().isEmpty(), quirks.name() + " takes no writes through Flight SQL");
    String table = TABLE + "_later";
    createEmptyContractTable(table);
    Dataset<Row> people = flightsql().option("dbtable", TABLE).load();
    appendTo(table, people.filter("id <= 3"));
    Dataset<Row> later =
        flightsql().option("query", "SELECT id FROM " + quirks.reportedName(table)).load();
    appendTo(table, people.filter("id > 3"));
    assertThat(later.collectAsList()).hasSize(ROWS.size());
  }

  private void appendTo(String table, Dataset<Row> rows) {
    quirks
        .writable(rows)
        .write()
        .format("flightsql")
        .option("uri", quirks.uri())
        .options(quirks.options())
        .option("dbtable", quirks.reportedName(table))
        .option("writeMethod", quirks.writeMethods().get(0))
        .mode("append")
        .save();
  }

  /** {@code spark.read.format("flightsql")} with the server's URI. */
  protected DataFrameReader flightsql() {
    return spark().read().format("flightsql").option("uri", quirks.uri()).options(quirks.options());
  }

  /** The values of each row, in column order, as Spark returns them. */
  protected static List<List<Object>> values(List<Row> rows) {
    List<List<Object>> values = new ArrayList<>();
    for (Row row : rows) {
      List<Object> cells = new ArrayList<>();
      for (int i = 0; i < row.length(); i++) {
        cells.add(row.get(i));
      }
      values.add(cells);
    }
    return values;
  }

  /** What Spark should return for these columns of these rows of {@link #ROWS}. */
  private List<List<Object>> expected(List<List<Object>> rows, ContractColumn... columns) {
    List<List<Object>> expected = new ArrayList<>();
    for (List<Object> row : rows) {
      List<Object> cells = new ArrayList<>();
      for (ContractColumn column : columns) {
        cells.add(quirks.sparkValue(column, row.get(column.ordinal())));
      }
      expected.add(cells);
    }
    return expected;
  }

  /** Each field as {@code name: type}, the way a user reads {@code printSchema}. */
  protected static List<String> describe(StructType schema) {
    return Arrays.stream(schema.fields())
        .map(f -> f.name() + ": " + f.dataType().simpleString())
        .collect(Collectors.toList());
  }

  private List<String> expectedSchema(ContractColumn... columns) {
    return Arrays.stream(columns)
        .map(c -> quirks.reportedName(c.sqlName()) + ": " + quirks.sparkType(c).simpleString())
        .collect(Collectors.toList());
  }

  @Test
  void readsEveryValueOfATableWrittenThroughTheServer() {
    Dataset<Row> people = flightsql().option("dbtable", TABLE).load();

    List<List<Object>> rows = values(people.collectAsList());

    rows.sort(Comparator.comparingLong(row -> ((Number) row.get(0)).longValue()));
    assertThat(rows).containsExactlyElementsOf(expected(ROWS, ContractColumn.values()));
  }

  /**
   * Spark samples the input of a global sort before it sorts it, so the job reads each partition
   * twice: the connector must cope with servers whose tickets can be redeemed only once.
   */
  @Test
  void sortsTheRowsInSpark() {
    Dataset<Row> people = flightsql().option("dbtable", TABLE).load();

    List<Row> rows = people.orderBy(quirks.reportedName("id")).collectAsList();

    assertThat(values(rows)).containsExactlyElementsOf(expected(ROWS, ContractColumn.values()));
  }

  @Test
  void returnsTheRowsAServerFilteredAndOrdered() {
    Dataset<Row> positive =
        flightsql()
            .option(
                "query", "SELECT id, name FROM " + TABLE + " WHERE score > 0 ORDER BY score DESC")
            .load();

    List<Row> rows = positive.collectAsList();

    assertThat(values(rows))
        .containsExactlyElementsOf(
            expected(List.of(ROWS.get(4), ROWS.get(0)), ContractColumn.ID, ContractColumn.NAME));
  }

  /**
   * Filters, a top-N, a limit with an offset and aggregates pushed into the server in its own
   * dialect give the rows Spark gives with every pushdown off; EXPLAIN shows what was pushed.
   */
  @Test
  void pushesFiltersTopNLimitsAndAggregatesWithTheSameAnswers() {
    pushedAndUnpushedViews("pushed_people", "unpushed_people");
    String[][] queries = {
      {"SELECT id FROM %s WHERE id IN (1, 3, 5)", "PushedFilters: [id IN (1, 3, 5)"},
      {
        "SELECT id FROM %s WHERE name = 'it''s'", "PushedFilters: [name IS NOT NULL, name = 'it''s'"
      },
      {"SELECT id FROM %s WHERE name LIKE 'Zo%%'", "PushedFilters: [name IS NOT NULL, name LIKE"},
      // Spark writes a null-safe comparison out before pushing it.
      {"SELECT id FROM %s WHERE NOT (name <=> 'bob')", "PushedFilters: [NOT ("},
      {"SELECT id FROM %s WHERE score < 1.0 OR name IS NULL", "PushedFilters: [(score < 1.0)"},
      {"SELECT id, name FROM %s ORDER BY id DESC LIMIT 2", "PushedTopN: ORDER BY [id DESC"},
      {"SELECT count(*) FROM (SELECT id FROM %s LIMIT 3 OFFSET 1)", "PushedOffset: OFFSET 1"},
      {"SELECT count(*), max(score), min(name) FROM %s", "ReadSchema"},
    };
    for (String[] q : queries) {
      Dataset<Row> pushed = spark().sql(String.format(q[0], "pushed_people"));
      assertThat(sortedRows(pushed))
          .as(q[0])
          .isEqualTo(sortedRows(spark().sql(String.format(q[0], "unpushed_people"))));
      String plan = pushed.queryExecution().executedPlan().toString();
      if (quirks.pushes(q[0])) {
        assertThat(plan.toLowerCase(java.util.Locale.ROOT))
            .as(q[0])
            .contains(q[1].toLowerCase(java.util.Locale.ROOT))
            .doesNotContain("filter ");
      } else {
        assertThat(plan.toLowerCase(java.util.Locale.ROOT))
            .as("%s: not pushed into %s, done by Spark", q[0], quirks.name())
            .doesNotContain(q[1].toLowerCase(java.util.Locale.ROOT));
      }
    }
  }

  /**
   * Every pushdown kind, each compared row for row with Spark's own answer with every pushdown off:
   * the comparison operators, null tests, AND/OR/NOT, string matches (with a quote), DISTINCT and
   * grouped aggregates, limits, offsets and top-N with NULL placement. Whether each is pushed is
   * the dialect's and the server's business; the answer must not change.
   */
  @Test
  void everyPushdownKindGivesSparksOwnAnswer() {
    pushedAndUnpushedViews("all_pushed", "none_pushed");
    String[] queries = {
      "SELECT id FROM %s WHERE id = 3",
      "SELECT id FROM %s WHERE id <> 3",
      "SELECT id FROM %s WHERE id < 3",
      "SELECT id FROM %s WHERE id <= 3",
      "SELECT id FROM %s WHERE id > 3",
      "SELECT id FROM %s WHERE id >= 3",
      "SELECT id FROM %s WHERE score <=> 1.5",
      "SELECT id FROM %s WHERE name IS NULL",
      "SELECT id FROM %s WHERE score IS NOT NULL AND id > 1",
      "SELECT id FROM %s WHERE NOT (score > 0)",
      "SELECT id FROM %s WHERE score > 0 OR name = 'bob'",
      "SELECT id FROM %s WHERE name IN ('alice', 'it''s')",
      "SELECT id FROM %s WHERE startswith(name, 'al')",
      "SELECT id FROM %s WHERE endswith(name, 's')",
      "SELECT id FROM %s WHERE contains(name, 'o')",
      "SELECT id FROM %s WHERE name = 'it''s'",
      "SELECT count(*), count(name), count(DISTINCT name) FROM %s",
      "SELECT sum(id), min(score), max(score), min(name), max(name) FROM %s WHERE id > 1",
      "SELECT name IS NULL, count(*), sum(id) FROM %s GROUP BY name IS NULL",
      "SELECT count(*) FROM (SELECT id FROM %s LIMIT 2)",
      "SELECT id FROM %s ORDER BY id LIMIT 2",
      "SELECT id FROM %s ORDER BY id DESC LIMIT 3 OFFSET 1",
      "SELECT id, name FROM %s ORDER BY name ASC NULLS FIRST, id LIMIT 3",
      "SELECT id, score FROM %s ORDER BY score DESC NULLS LAST LIMIT 2",
      "SELECT count(*) FROM %s WHERE score IS NULL OR score < 0",
    };
    for (String q : queries) {
      List<String> pushed = sortedRows(spark().sql(String.format(q, "all_pushed")));
      List<String> unpushed = sortedRows(spark().sql(String.format(q, "none_pushed")));
      assertThat(pushed).as("%s on %s", q, quirks.name()).isEqualTo(unpushed);
    }
  }

  /**
   * Spark reads planned partitions again for a second action on the same DataFrame, a second job
   * over the same RDD and the sampling pass of a sort: each gives the same rows, also on servers
   * whose tickets can be read once (Sail, Deephaven). Those give one endpoint per query, which the
   * connector plans again; a plan of several endpoints never is (SingleUseTicketsTest).
   */
  @Test
  void aPlannedReadReadAgainGivesTheSameRows() {
    Dataset<Row> people = flightsql().option("dbtable", TABLE).load();
    List<String> once = sortedRows(people);
    assertThat(once).hasSize(ROWS.size());
    assertThat(sortedRows(people)).isEqualTo(once);
    org.apache.spark.api.java.JavaRDD<Row> rdd = people.javaRDD();
    assertThat(rdd.collect()).hasSize(ROWS.size());
    assertThat(rdd.collect()).hasSize(ROWS.size());
    String partitions = spark().conf().get("spark.sql.shuffle.partitions");
    spark().conf().set("spark.sql.shuffle.partitions", "3");
    try {
      List<Row> sorted = people.orderBy(quirks.reportedName("id")).collectAsList();
      assertThat(values(sorted)).containsExactlyElementsOf(expected(ROWS, ContractColumn.values()));
    } finally {
      spark().conf().set("spark.sql.shuffle.partitions", partitions);
    }
  }

  /** Client partitions (option {@code partitionColumn}) read the same rows as one read does. */
  @Test
  void clientPartitionsReadTheSameRows() {
    List<String> whole = sortedRows(flightsql().option("dbtable", TABLE).load());
    Dataset<Row> split =
        flightsql()
            .option("dbtable", TABLE)
            .option("partitionColumn", quirks.reportedName("id"))
            .option("lowerBound", "1")
            .option("upperBound", "5")
            .option("numPartitions", "3")
            .load();
    assertThat(split.rdd().getNumPartitions()).isEqualTo(3);
    assertThat(sortedRows(split)).isEqualTo(whole);
  }

  /** The contract table as two temporary views: read as usual, and with every pushdown off. */
  private void pushedAndUnpushedViews(String pushed, String unpushed) {
    flightsql().option("dbtable", TABLE).load().createOrReplaceTempView(pushed);
    DataFrameReader off = flightsql().option("dbtable", TABLE);
    for (String option :
        List.of(
            "pushDownPredicate",
            "pushDownLimit",
            "pushDownOffset",
            "pushDownTopN",
            "pushDownAggregate")) {
      off = off.option(option, "false");
    }
    off.load().createOrReplaceTempView(unpushed);
  }

  private static List<String> sortedRows(Dataset<Row> df) {
    List<String> rows = new ArrayList<>();
    df.collectAsList().forEach(r -> rows.add(r.toString()));
    rows.sort(null);
    return rows;
  }

  /**
   * A table name that two schemas share (the server's current one and {@link
   * ServerQuirks#secondSchema()}): without its schema, every write takes the table the server's own
   * SQL means by the name, in its current schema; with its schema, the table it names. Where the
   * connector cannot establish the server's current schema (option {@code dialect=ansi} has no
   * query for it), the write is refused, naming both tables, and changes nothing.
   */
  @Test
  void aNameTwoSchemasShareMeansTheTableTheServersSqlMeans() {
    String second = quirks.secondSchema();
    Assumptions.assumeTrue(second != null, quirks.name() + " lists the tables of one schema only");
    Assumptions.assumeFalse(
        quirks.writeMethods().isEmpty(), quirks.name() + " takes no writes through Flight SQL");
    String table = quirks.reportedName("names_shared");
    String qualified = second + "." + table;
    String id = quirks.ddlType(ContractColumn.ID);
    quirks.executeUpdate("CREATE SCHEMA " + second);
    quirks.executeUpdate("CREATE TABLE " + table + " (id " + id + ")");
    quirks.executeUpdate("INSERT INTO " + table + " VALUES (1), (2), (3), (4), (5)");
    quirks.executeUpdate("CREATE TABLE " + qualified + " (id " + id + ")");
    quirks.executeUpdate("INSERT INTO " + qualified + " VALUES (1), (2), (3)");

    writeTwoRows(table, "append", "auto");
    assertThat(rowsIn(table, qualified)).containsExactly(7L, 3L);
    writeTwoRows(table, "append", "false");
    assertThat(rowsIn(table, qualified)).containsExactly(9L, 3L);
    writeTwoRows(table, "overwrite", "auto");
    assertThat(rowsIn(table, qualified)).containsExactly(2L, 3L);
    writeTwoRows(qualified, "append", "auto");
    assertThat(rowsIn(table, qualified)).containsExactly(2L, 5L);

    assertThatThrownBy(
            () ->
                spark()
                    .range(100, 102)
                    .selectExpr("CAST(id AS INT) AS " + quirks.reportedName("id"))
                    .write()
                    .format("flightsql")
                    .option("uri", quirks.uri())
                    .options(quirks.options())
                    .option("dbtable", table)
                    .option("dialect", "ansi")
                    .mode("append")
                    .save())
        .hasMessageContaining("[flightsql] Table \"" + table + "\" names 2 tables")
        .hasMessageContaining("\"" + second + "\".\"" + table + "\"")
        .hasMessageContaining("could not be established")
        .hasMessageContaining("Name the table with its schema");
    assertThat(rowsIn(table, qualified)).containsExactly(2L, 5L);
  }

  /** Two rows from one task: one prepared statement at a time on servers that pool them. */
  private void writeTwoRows(String dbtable, String mode, String atomic) {
    spark()
        .range(100, 102, 1, 1)
        .selectExpr("CAST(id AS INT) AS " + quirks.reportedName("id"))
        .write()
        .format("flightsql")
        .option("uri", quirks.uri())
        .options(quirks.options())
        .option("dbtable", dbtable)
        .option("writeMethod", quirks.writeMethods().get(0))
        .option("atomic", atomic)
        .mode(mode)
        .save();
  }

  /** The rows a read of each table by name finds. */
  private List<Long> rowsIn(String... tables) {
    List<Long> counts = new ArrayList<>();
    for (String table : tables) {
      counts.add(flightsql().option("dbtable", table).load().count());
    }
    return counts;
  }

  @Test
  void readsAnEmptyResultWithItsSchema() {
    Dataset<Row> none =
        flightsql().option("query", "SELECT * FROM " + TABLE + " WHERE id < 0").load();

    assertThat(none.collectAsList()).isEmpty();
    assertThat(none.count()).isZero();
    assertThat(describe(none.schema()))
        .containsExactlyElementsOf(expectedSchema(ContractColumn.values()));
  }

  @Test
  void mapsColumnNamesAndTypesToSpark() {
    StructType schema = flightsql().option("dbtable", TABLE).load().schema();

    assertThat(describe(schema)).containsExactlyElementsOf(expectedSchema(ContractColumn.values()));
  }

  @Test
  void answersSqlOverATemporaryView() {
    spark()
        .sql(
            "CREATE TEMPORARY VIEW contract_view USING flightsql OPTIONS (uri '"
                + quirks.uri()
                + "', dbtable '"
                + TABLE
                + "'"
                + quirks.options().entrySet().stream()
                    .map(o -> ", `" + o.getKey() + "` '" + o.getValue() + "'")
                    .collect(Collectors.joining())
                + ")");
    try {
      Row answer =
          spark()
              .sql(
                  "SELECT count(*) AS scored, count(name) AS named, max(id) AS last_id,"
                      + " sum(score) AS total FROM contract_view WHERE score IS NOT NULL")
              .first();

      assertThat(answer.getLong(0)).isEqualTo(4);
      assertThat(answer.getLong(1)).isEqualTo(3);
      assertThat(((Number) answer.get(2)).longValue()).isEqualTo(5);
      assertThat(answer.getDouble(3)).isEqualTo(1.5 - 2.25 + 0.0 + 1.0e10);
    } finally {
      spark().sql("DROP VIEW contract_view");
    }
  }

  @Test
  void reportsTheServersOwnWordsForBadSql() {
    assertThatThrownBy(() -> flightsql().option("query", "SELEKT 1").load().collectAsList())
        .isInstanceOf(FlightSqlConnectorException.class)
        .hasMessageStartingWith("[flightsql] ")
        .hasMessageContaining(quirks.syntaxErrorText());
  }

  @Test
  void namesTheUriAndTheOptionWhenNothingListens() {
    String nowhere = "grpc://" + FreePorts.LOOPBACK + ":" + FreePorts.pick();

    assertThatThrownBy(
            () ->
                spark()
                    .read()
                    .format("flightsql")
                    .option("uri", nowhere)
                    .option("dbtable", TABLE)
                    .load()
                    .collectAsList())
        .isInstanceOf(FlightSqlConnectorException.class)
        .hasMessageStartingWith("[flightsql] ")
        .hasMessageContaining("UNAVAILABLE")
        .hasMessageContaining(nowhere)
        .hasMessageContaining("option 'uri'");
  }
}
