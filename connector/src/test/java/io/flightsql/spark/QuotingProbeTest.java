package io.flightsql.spark;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.metadata.ServerFacts;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.HandBuiltFlightSqlServer;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server that does not say how it quotes identifiers (the hand-built server has no GetSqlInfo)
 * gets a probe query, and its answer decides what is pushed: the string {@code c} means Spark SQL
 * (backticks, {@code "..."} a string), 1 means ANSI double quotes, and no answer means nothing that
 * names a column is pushed. The hand-built server answers only the exact query texts it was given,
 * so each test shows the very SQL the connector sent; a read whose SQL it does not know fails with
 * NOT_FOUND naming it.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class QuotingProbeTest {
  private static final Schema PEOPLE =
      new Schema(
          List.of(
              new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
              new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
  private static final Schema ONE_STRING =
      new Schema(List.of(new Field("c", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
  private static final Schema ONE_NUMBER =
      new Schema(List.of(new Field("c", FieldType.nullable(new ArrowType.Int(32, true)), null)));

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static BufferAllocator allocator;
  private HandBuiltFlightSqlServer server;

  @BeforeAll
  static void openAllocator() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void closeAllocator() {
    allocator.close();
  }

  @BeforeEach
  void startServer() {
    server = HandBuiltFlightSqlServer.start();
    // Each test's server is new, but what a server said is remembered per address and user.
    ServerFacts.forgetAll();
  }

  /**
   * Answers GetSqlInfo with FLIGHT_SQL_SERVER_NAME {@code name} (none when null) and
   * SQL_IDENTIFIER_QUOTE_CHAR {@code quote}, and nothing else.
   */
  private void sqlInfoSays(String name, String quote) {
    Map<Integer, String> said = new LinkedHashMap<>();
    if (name != null) {
      said.put(SqlInfo.FLIGHT_SQL_SERVER_NAME_VALUE, name);
    }
    said.put(SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR_VALUE, quote);
    try (VectorSchemaRoot root =
        VectorSchemaRoot.create(FlightSqlProducer.Schemas.GET_SQL_INFO_SCHEMA, allocator)) {
      root.allocateNew();
      UInt4Vector ids = (UInt4Vector) root.getVector(0);
      DenseUnionVector values = (DenseUnionVector) root.getVector(1);
      // string_value is the union's first member.
      byte stringType = (byte) 0;
      VarCharVector strings = (VarCharVector) values.getVectorByType(stringType);
      int row = 0;
      for (Map.Entry<Integer, String> entry : said.entrySet()) {
        ids.setSafe(row, entry.getKey());
        values.setTypeId(row, stringType);
        values.setOffset(row, row);
        strings.setSafe(row, entry.getValue().getBytes(StandardCharsets.UTF_8));
        row++;
      }
      strings.setValueCount(row);
      root.setRowCount(row);
      server
          .dataset(HandBuiltFlightSqlServer.SQL_INFO, FlightSqlProducer.Schemas.GET_SQL_INFO_SCHEMA)
          .batch(root)
          .register();
    }
  }

  /** Serves {@code rows} (id, s) for each of the query texts. */
  private void people(List<Object[]> rows, String... queries) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(PEOPLE, allocator)) {
      root.allocateNew();
      BigIntVector ids = (BigIntVector) root.getVector("id");
      VarCharVector names = (VarCharVector) root.getVector("s");
      for (int i = 0; i < rows.size(); i++) {
        ids.setSafe(i, (Long) rows.get(i)[0]);
        names.setSafe(i, ((String) rows.get(i)[1]).getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(rows.size());
      for (String query : queries) {
        server.dataset(query, PEOPLE).batch(root).register();
      }
    }
  }

  /** Answers the double-quote probe with the string {@code c}, as Spark SQL does. */
  private void probeAnswersAString() {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(ONE_STRING, allocator)) {
      root.allocateNew();
      ((VarCharVector) root.getVector(0)).setSafe(0, "c".getBytes(StandardCharsets.UTF_8));
      root.setRowCount(1);
      server.dataset("SELECT \"c\" FROM (SELECT 1 AS c) t", ONE_STRING).batch(root).register();
    }
  }

  /** Answers the double-quote probe with 1, as ANSI SQL does. */
  private void probeAnswersOne() {
    answerOne("SELECT \"c\" FROM (SELECT 1 AS c) t");
  }

  /** The probe that asks whether the server compares strings as Spark does (PushdownProbes). */
  static final String STRING_ORDER_PROBE =
      "SELECT 1 AS c FROM (SELECT 'a' AS x) t WHERE 'B' < x AND x <> 'A' AND x <> 'a '"
          + " AND 'z' < '\u00e9' AND '\ufffd' < '\ud83d\ude00'";

  /** Answers the string-order probe with its one row, as a server with a binary collation does. */
  private void stringsCompareAsInSpark() {
    answerOne(STRING_ORDER_PROBE);
  }

  private void answerOne(String query) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(ONE_NUMBER, allocator)) {
      root.allocateNew();
      ((org.apache.arrow.vector.IntVector) root.getVector(0)).setSafe(0, 1);
      root.setRowCount(1);
      server.dataset(query, ONE_NUMBER).batch(root).register();
    }
  }

  private Dataset<Row> people() {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .option("dbtable", "people")
        .load();
  }

  private static List<String> rows(Dataset<Row> df) {
    return df.collectAsList().stream().map(Row::toString).sorted().collect(Collectors.toList());
  }

  private static final List<Object[]> ALL =
      List.<Object[]>of(
          new Object[] {1L, "41"}, new Object[] {2L, "42"}, new Object[] {3L, "it's"});

  @Test
  void aServerThatReadsDoubleQuotesAsAStringGetsBackticks() {
    probeAnswersAString();
    stringsCompareAsInSpark();
    people(ALL, "SELECT * FROM people", "SELECT * FROM people WHERE (`s` IS NOT NULL)");
    people(
        List.<Object[]>of(new Object[] {2L, "42"}),
        "SELECT * FROM people WHERE (`s` IS NOT NULL) AND (`s` = '42')");
    people(
        List.<Object[]>of(new Object[] {3L, "it's"}),
        "SELECT * FROM people WHERE (`s` IS NOT NULL) AND (`s` = \"it's\")");
    assertThat(rows(people().filter(col("s").equalTo("42")))).containsExactly("[2,42]");
    // A quote inside a string: Spark SQL would read 'it''s' as 'it' 's', so "it's" is sent.
    assertThat(rows(people().filter(col("s").equalTo("it's")))).containsExactly("[3,it's]");
    // A backslash means something else with spark.sql.parser.escapedStringLiterals: only the
    // IS NOT NULL is pushed, and Spark compares.
    assertThat(rows(people().filter(col("s").equalTo("a\\b")))).isEmpty();
  }

  @Test
  void aServerThatReadsDoubleQuotesAsANameGetsThem() {
    probeAnswersOne();
    people(ALL, "SELECT * FROM people");
    people(
        List.<Object[]>of(new Object[] {2L, "42"}),
        "SELECT * FROM people WHERE (\"s\" IS NOT NULL) AND (\"s\" = '42')");
    assertThat(rows(people().filter(col("s").equalTo("42")))).containsExactly("[2,42]");
  }

  /**
   * A bridge that names itself DuckDB but says it quotes with {@code [}: the bracket is not taken,
   * and the dialect's own {@code "} quotes the pushed SQL.
   */
  @Test
  void aBracketAsIdentifierQuoteIsNotTaken() {
    sqlInfoSays("DuckDB via a bridge", "[");
    people(ALL, "SELECT * FROM people");
    people(
        List.<Object[]>of(new Object[] {2L, "42"}),
        "SELECT * FROM people WHERE (\"s\" IS NOT NULL) AND (\"s\" = '42')");
    Dataset<Row> filtered = people().filter(col("s").equalTo("42"));
    assertThat(rows(filtered)).containsExactly("[2,42]");
    assertThat(filtered.queryExecution().executedPlan().toString())
        .contains("Dialect: duckdb")
        .contains("SQL: SELECT * FROM people WHERE (\"s\" IS NOT NULL) AND (\"s\" = '42')");
  }

  /**
   * A quote with spaces around it from a server that does not name itself is not taken: where the
   * quoting probes cannot tell either, nothing naming a column is pushed, and Spark filters.
   */
  @Test
  void aQuoteWithSpacesIsNotTakenAndWithoutAProbeAnswerNothingIsPushed() {
    sqlInfoSays(null, "\" \"");
    people(ALL, "SELECT * FROM people");
    Dataset<Row> filtered = people().filter(col("s").equalTo("42")).select("id");
    assertThat(rows(filtered)).containsExactly("[2]");
    assertThat(filtered.queryExecution().executedPlan().toString())
        .contains("PushedFilters: []")
        .contains("SQL: SELECT * FROM people]");
  }

  /**
   * Derby pads the shorter string with spaces ({@code 'a' = 'a '}), so a server named Derby gets no
   * comparison, range or ordering of a string column, and is not even asked the string-order probe:
   * Spark compares, and the rows are Spark's. IS NOT NULL, which compares nothing, is still pushed.
   */
  @Test
  void aDerbyServerComparesNoStrings() {
    sqlInfoSays("Apache Derby", "\"");
    stringsCompareAsInSpark();
    people(ALL, "SELECT * FROM people", "SELECT * FROM people WHERE (\"s\" IS NOT NULL)");
    Dataset<Row> equal = people().filter(col("s").equalTo("42"));
    assertThat(rows(equal)).containsExactly("[2,42]");
    assertThat(equal.queryExecution().executedPlan().toString())
        .contains("SQL: SELECT * FROM people WHERE (\"s\" IS NOT NULL)]");
    Dataset<Row> range = people().filter(col("s").gt("41"));
    assertThat(rows(range)).containsExactly("[2,42]", "[3,it's]");
    assertThat(range.queryExecution().executedPlan().toString()).doesNotContain("\"s\" >");
  }

  /**
   * A server of the MySQL family (MySQL itself ignores case by default; Doris and StarRocks compare
   * bytes) that does not answer the string-order probe gets no string comparison.
   */
  @Test
  void aServerWhoseStringOrderIsUnknownComparesNoStrings() {
    sqlInfoSays("StarRocks", "`");
    people(ALL, "SELECT * FROM people", "SELECT * FROM people WHERE (`s` IS NOT NULL)");
    Dataset<Row> equal = people().filter(col("s").equalTo("42"));
    assertThat(rows(equal)).containsExactly("[2,42]");
    assertThat(equal.queryExecution().executedPlan().toString())
        .contains("SQL: SELECT * FROM people WHERE (`s` IS NOT NULL)]");
  }

  /** The same server, answering the probe with its one row, gets its strings compared. */
  @Test
  void aServerThatAnswersTheStringOrderProbeGetsItsStringsCompared() {
    sqlInfoSays("StarRocks", "`");
    stringsCompareAsInSpark();
    people(ALL, "SELECT * FROM people");
    people(
        List.<Object[]>of(new Object[] {2L, "42"}),
        "SELECT * FROM people WHERE (`s` IS NOT NULL) AND (`s` = '42')");
    Dataset<Row> filtered = people().filter(col("s").equalTo("42"));
    assertThat(rows(filtered)).containsExactly("[2,42]");
    assertThat(filtered.queryExecution().executedPlan().toString())
        .contains("SQL: SELECT * FROM people WHERE (`s` IS NOT NULL) AND (`s` = '42')");
  }

  @Test
  void aServerWhoseQuotingCannotBeToldGetsNothingPushedAndStillTheRightRows() {
    // No probe answers: both probes fail with NOT_FOUND.
    people(ALL, "SELECT * FROM people");
    Dataset<Row> filtered = people().filter(col("s").equalTo("42")).select("id");
    assertThat(rows(filtered)).containsExactly("[2]");
    assertThat(people().count()).isEqualTo(3);
    assertThat(filtered.queryExecution().executedPlan().toString()).contains("PushedFilters: []");
  }

  @Test
  void clientPartitionsOverAServerWhoseQuotingCannotBeToldAreRefusedNamingTheFix() {
    people(ALL, "SELECT * FROM people");
    assertThatThrownBy(
            () ->
                people()
                    .sparkSession()
                    .read()
                    .format("flightsql")
                    .option("uri", server.uri())
                    .option("dbtable", "people")
                    .option("partitionColumn", "id")
                    .option("lowerBound", "1")
                    .option("upperBound", "3")
                    .option("numPartitions", "2")
                    .load()
                    .collectAsList())
        .hasMessageContaining("does not say how it quotes identifiers")
        .hasMessageContaining("Set option 'dialect'");
  }

  @Test
  void optionDialectSparkNeedsNoProbe() {
    people(ALL, "SELECT * FROM people");
    people(
        List.<Object[]>of(new Object[] {2L, "42"}),
        "SELECT * FROM people WHERE (`s` IS NOT NULL) AND (`s` = '42')");
    Dataset<Row> read =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", server.uri())
            .option("dbtable", "people")
            .option("dialect", "spark")
            .load();
    assertThat(rows(read.filter(col("s").equalTo("42")))).containsExactly("[2,42]");
  }
}
