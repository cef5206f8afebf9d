package io.flightsql.spark.it;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.AdversarialValues;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract against arrow-go's SQLite Flight SQL example, a Go process this project did not
 * write. It announces no schema before a query runs (no GetSchema, no schema in FlightInfo or in
 * prepared statements), so the connector takes it from the head of the stream; SQLite's INTEGER
 * comes back as int64 and DATE as text.
 */
class GoSqliteIT extends FlightSqlContractSuite
    implements DifferentialFuzzContract,
        FailedWriteContract,
        OptimizerContract,
        StreamingContract,
        ReadCallsContract,
        AggregateContract {
  @RegisterExtension static final GoSqliteServerExtension SERVER = new GoSqliteServerExtension();

  /**
   * No schema before a query runs: the schema inference runs the query and reads the head of its
   * stream, then the read runs it again for the rows of its own action.
   */
  @Override
  public List<String> repeatedReadCalls() {
    return List.of(
        "GetFlightInfo(CommandStatementQuery)",
        "DoGet",
        "GetFlightInfo(CommandStatementQuery)",
        "DoGet");
  }

  @Override
  public String fuzzDialect() {
    return "sqlite";
  }

  @Override
  protected ServerQuirks startServer() {
    return new SqliteQuirks(SERVER.uri());
  }

  @Test
  void readsTheTableTheExampleStartsWith() {
    Dataset<Row> ints = flightsql().option("dbtable", "intTable").load();

    assertThat(describe(ints.schema()))
        .containsExactly("id: bigint", "keyName: string", "value: bigint", "foreignId: bigint");
    List<List<Object>> rows = values(ints.collectAsList());
    rows.sort(Comparator.comparingLong(row -> (Long) row.get(0)));
    assertThat(rows)
        .containsExactly(
            Arrays.asList(1L, "one", 1L, 1L),
            Arrays.asList(2L, "zero", 0L, 1L),
            Arrays.asList(3L, "negative one", -1L, 1L),
            Arrays.asList(4L, null, null, null));
  }

  /**
   * The catalog over arrow-go's SQLite example: one catalog, {@code main}, without schemas, so the
   * namespaces are {@code [main]}; a server that sends no schema before a query runs, so DESCRIBE
   * takes the columns from GetTables; transactions, so INSERT OVERWRITE is atomic.
   */
  @Test
  void catalogShowsDescribesReadsAndWritesSqlitesTables() {
    CatalogStatements sqlite = new CatalogStatements(spark(), "sqlite", SERVER.uri());
    assertThat(sqlite.rows("SHOW NAMESPACES IN sqlite")).containsExactly("main");
    assertThat(sqlite.rows("SHOW NAMESPACES IN sqlite.main")).isEmpty();
    assertThat(sqlite.rows("SHOW TABLES IN sqlite.main"))
        .contains("main|intTable|false", "main|foreignTable|false");
    assertThat(
            CatalogStatements.rows(
                sqlite.sql("DESCRIBE TABLE sqlite.main.inttable").select("col_name", "data_type")))
        .startsWith("id|bigint", "keyName|string", "value|bigint", "foreignId|bigint");

    Dataset<Row> pushed =
        sqlite.sql("SELECT keyName FROM sqlite.main.intTable WHERE value >= 0 ORDER BY value");
    assertThat(CatalogStatements.rows(pushed)).containsExactly("zero", "one");
    assertThat(CatalogStatements.explain(pushed))
        .contains("Dialect: sqlite")
        .contains("PushedFilters: [");

    sqlite.sql("CREATE TABLE sqlite.main.cat_people (id BIGINT NOT NULL, name STRING)");
    sqlite.sql("INSERT INTO sqlite.main.cat_people VALUES (1, 'ann'), (2, 'bob')");
    assertThat(sqlite.rows("SELECT * FROM sqlite.main.cat_people ORDER BY id"))
        .containsExactly("1|ann", "2|bob");
    sqlite.sql("INSERT OVERWRITE sqlite.main.cat_people SELECT 3, 'cy'");
    assertThat(sqlite.rows("SELECT * FROM sqlite.main.cat_people")).containsExactly("3|cy");
    assertThat(sqlite.rows("SHOW TABLES IN sqlite.main"))
        .noneMatch(row -> row.contains("_flightsql_"));
    sqlite.sql("ALTER TABLE sqlite.main.cat_people RENAME TO cat_persons");
    sqlite.sql(
        "CREATE TABLE sqlite.main.cat_copy AS SELECT id * 10 AS id, name FROM"
            + " sqlite.main.cat_persons");
    assertThat(sqlite.rows("SELECT * FROM sqlite.main.cat_copy")).containsExactly("30|cy");
    sqlite.sql("DROP TABLE sqlite.main.cat_persons");
    sqlite.sql("DROP TABLE sqlite.main.cat_copy");
    assertThat(sqlite.rows("SHOW TABLES IN sqlite.main"))
        .doesNotContain("main|cat_persons|false", "main|cat_copy|false", "main|cat_people|false");
  }

  /**
   * A write task's batches fit gRPC-Go's default limit of 4 MiB per received message with the
   * default options: 120,000 rows of about 110 bytes in one task, uncompressed, arrive whole. (With
   * batches of 4 MiB of Arrow buffers, the former default, the server refused the first batch: the
   * IPC message around them is a little larger.) A server that refuses a batch as too large says
   * which option makes batches smaller.
   */
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // SQLite inserts one row at a time
  void batchesOfTheDefaultSizeFitTheServersMessageLimit() {
    String table = Names.next("big_batches");
    Dataset<Row> rows =
        spark()
            .range(0, 120_000, 1, 1)
            .selectExpr("id", "repeat('x', 100) AS " + quirks().reportedName("note"));
    rows.write()
        .format("flightsql")
        .option("uri", SERVER.uri())
        .option("dbtable", table)
        .mode("append")
        .save();
    assertThat(
            FlightSqlUpdates.rows(
                SERVER.uri(),
                "SELECT COUNT(*), SUM(id), SUM(LENGTH(note)) FROM " + table,
                java.time.Duration.ofMinutes(5)))
        .containsExactly("120000|7199940000|12000000");

    assertThatThrownBy(
            () ->
                rows.write()
                    .format("flightsql")
                    .option("uri", SERVER.uri())
                    .option("dbtable", table)
                    .option("batchBytes", String.valueOf(8L * 1024 * 1024))
                    .option("batchSize", "1000000")
                    .option("atomic", "false")
                    .mode("append")
                    .save())
        .hasMessageContaining("RESOURCE_EXHAUSTED")
        .hasMessageContaining("larger than max")
        .hasMessageContaining("lower option 'batchBytes'");
  }

  /**
   * arrow-go's example sends a column without a declared type (an expression, a bare NULL) as a
   * dense union of int64, float64 and string, since SQLite types each value on its own. Spark has
   * no union type: the connector refuses it naming the option that reads it as text, and with that
   * option plans the column as a string.
   */
  @Test
  void untypedColumnsArriveAsMixedUnionsAndReadAsTextWhenAsked() {
    assertThatThrownBy(() -> flightsql().option("query", "SELECT NULL AS n, 1 AS one").load())
        .hasMessageStartingWith("Column 'n' has Arrow type Union(Dense, [0, 1, 2])")
        .hasMessageContaining("Set option 'mixedUnions' to 'string'");
    // The schema is all this server can give here: reading the NULL makes the example's own union
    // builder panic ("some fields have excessive number of rows"). The hand-built stream tests read
    // mixed-union values as text.
    Dataset<Row> df =
        flightsql()
            .option("query", "SELECT NULL AS n, 1 AS one")
            .option("mixedUnions", "string")
            .load();
    assertThat(describe(df.schema())).containsExactly("n: string", "one: bigint");
  }

  private static final Map<String, BiFunction<Column, String, Column>> OPERATORS =
      new LinkedHashMap<>();

  static {
    OPERATORS.put("=", (c, v) -> c.equalTo(lit(v)));
    OPERATORS.put("<>", (c, v) -> c.notEqual(lit(v)));
    OPERATORS.put("<", (c, v) -> c.lt(lit(v)));
    OPERATORS.put(">=", (c, v) -> c.geq(lit(v)));
    OPERATORS.put("<=>", (c, v) -> c.eqNullSafe(lit(v)));
    OPERATORS.put("NOT <=>", (c, v) -> not(c.eqNullSafe(lit(v))));
    OPERATORS.put("IN", (c, v) -> c.isin(v, "a", "'"));
    OPERATORS.put("STARTS_WITH", (c, v) -> c.startsWith(v));
    OPERATORS.put("ENDS_WITH", (c, v) -> c.endsWith(v));
    OPERATORS.put("CONTAINS", (c, v) -> c.contains(v));
  }

  /** A SQLite string literal written by the test itself, independently of the connector. */
  private static String sqliteLiteral(String value) {
    return value == null ? "NULL" : "'" + value.replace("'", "''") + "'";
  }

  private static String sqliteName(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /**
   * Filters with adversarial strings and column names, pushed into arrow-go's SQLite example: each
   * operator on each value gives the rows Spark gives with pushdown off, is pushed whenever the
   * value can be written (all but those with NUL), and no second statement ever runs.
   */
  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES) // about 1,700 queries, each planned and run
  void adversarialValuesArePushedSafelyAndFilterAsSparkDoes() {
    List<String> values = AdversarialValues.strings(true);
    List<String> stored = new ArrayList<>();
    for (String v : values) {
      if (v.indexOf('\0') < 0) {
        stored.add(v);
      }
    }
    List<String> names = new ArrayList<>();
    names.add("s");
    names.addAll(AdversarialValues.columnNames());
    quirks.executeUpdate("CREATE TABLE canary (id integer, v text)");
    quirks.executeUpdate("INSERT INTO canary VALUES (1, 'alive'), (2, 'still alive')");
    StringBuilder ddl = new StringBuilder("CREATE TABLE adversarial (id integer");
    for (String name : names) {
      ddl.append(", ").append(sqliteName(name)).append(" text");
    }
    quirks.executeUpdate(ddl.append(')').toString());
    for (int i = 0; i <= stored.size(); i++) {
      StringBuilder row = new StringBuilder("INSERT INTO adversarial VALUES (").append(i);
      for (int k = 0; k < names.size(); k++) {
        String v = i == stored.size() ? null : stored.get((i + k) % stored.size());
        row.append(", ").append(sqliteLiteral(v));
      }
      quirks.executeUpdate(row.append(')').toString());
    }

    Dataset<Row> pushed = flightsql().option("dbtable", "adversarial").load();
    Dataset<Row> unpushed =
        flightsql()
            .option("dbtable", "adversarial")
            .option("pushDownPredicate", "false")
            .load()
            .cache();
    List<String> operators = new ArrayList<>(OPERATORS.keySet());
    int pushedCount = 0;
    for (int n = 0; n < names.size(); n++) {
      String name = names.get(n);
      List<String> sample = n == 0 ? values : values.subList(0, 4);
      for (String value : sample) {
        List<Column> tests = new ArrayList<>();
        tests.add(col("id"));
        for (String op : operators) {
          tests.add(OPERATORS.get(op).apply(column(unpushed, name), value));
        }
        List<Row> sparkRows = unpushed.select(tests.toArray(new Column[0])).collectAsList();
        for (int o = 0; o < operators.size(); o++) {
          List<Long> expected = new ArrayList<>();
          for (Row row : sparkRows) {
            if (!row.isNullAt(o + 1) && row.getBoolean(o + 1)) {
              expected.add(row.getLong(0));
            }
          }
          expected.sort(Long::compare);
          String op = operators.get(o);
          Dataset<Row> df =
              pushed.filter(OPERATORS.get(op).apply(column(pushed, name), value)).select("id");
          String what = op + " on " + name + " with " + shorten(value);
          String plan = df.queryExecution().executedPlan().toString();
          List<Long> actual = new ArrayList<>();
          for (Row row : df.collectAsList()) {
            actual.add(row.getLong(0));
          }
          actual.sort(Long::compare);
          assertThat(actual).as(what).isEqualTo(expected);
          assertThat(plan).as(what).contains("Dialect: sqlite");
          if (value.indexOf('\0') < 0) {
            assertThat(plan).as(what).doesNotContain("Filter ");
            pushedCount++;
          } else {
            assertThat(plan).as(what).contains("Filter ");
          }
        }
      }
    }
    assertThat(pushedCount).isGreaterThan(1000);
    unpushed.unpersist(true);
    List<List<Object>> canary =
        values(flightsql().option("dbtable", "canary").load().orderBy("id").collectAsList());
    assertThat(canary)
        .containsExactly(Arrays.asList(1L, "alive"), Arrays.asList(2L, "still alive"));
    assertThat(flightsql().option("dbtable", "adversarial").load().count())
        .isEqualTo(stored.size() + 1L);
  }

  private static Column column(Dataset<Row> df, String name) {
    return df.col("`" + name.replace("`", "``") + "`");
  }

  private static String shorten(String value) {
    String shown =
        value.length() > 40 ? value.substring(0, 40) + "...(" + value.length() + ")" : value;
    return "'" + shown.replace("\0", "\\0") + "'";
  }

  /**
   * This server gives one endpoint per query, so a read is one partition unless the client splits
   * it: split on an integer column into four ranges, or by predicates, it reads what the whole read
   * does, NULLs and values outside the bounds included.
   */
  @Test
  void partitionedReadsEqualTheUnpartitionedRead() {
    quirks.executeUpdate("CREATE TABLE parts_it (id integer, v integer, note text)");
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      rows.add(
          "(" + i + ", " + (i % 11 == 0 ? "NULL" : Integer.toString(i - 50)) + ", 'n" + i + "')");
    }
    quirks.executeUpdate("INSERT INTO parts_it VALUES " + String.join(", ", rows));

    Dataset<Row> whole = flightsql().option("dbtable", "parts_it").load();
    assertThat(whole.rdd().getNumPartitions()).isEqualTo(1);
    List<List<Object>> expected = sortedById(whole);
    assertThat(expected).hasSize(200);

    Dataset<Row> ranges =
        flightsql()
            .option("dbtable", "parts_it")
            .option("partitionColumn", "v")
            .option("lowerBound", "0")
            .option("upperBound", "100")
            .option("numPartitions", "4")
            .load();
    assertThat(ranges.rdd().getNumPartitions()).isEqualTo(4);
    assertThat(sortedById(ranges)).isEqualTo(expected);

    Dataset<Row> predicates =
        flightsql()
            .option("dbtable", "parts_it")
            .option("predicates", "[\"v < 10\", \"v >= 10\", \"v IS NULL\"]")
            .load();
    assertThat(predicates.rdd().getNumPartitions()).isEqualTo(3);
    assertThat(sortedById(predicates)).isEqualTo(expected);
  }

  private static List<List<Object>> sortedById(Dataset<Row> rows) {
    List<List<Object>> out = values(rows.collectAsList());
    out.sort(Comparator.comparingLong(row -> (Long) row.get(0)));
    return out;
  }
}
