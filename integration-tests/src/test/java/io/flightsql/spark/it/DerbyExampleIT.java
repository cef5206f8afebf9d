package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.servers.DerbyExampleServer;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * The contract against Arrow Java's {@code FlightSqlExample} (Derby), a server this project did not
 * write, started in this JVM. Derby upper-cases unquoted names and sends timestamps as {@code
 * timestamp[ms, tz=UTC]}, which Spark reads as instants.
 */
class DerbyExampleIT extends FlightSqlContractSuite
    implements DifferentialFuzzContract,
        FailedWriteContract,
        OptimizerContract,
        StreamingContract,
        ReadCallsContract,
        AggregateContract {
  private DerbyExampleServer server;

  /**
   * No GetSchema: the schema comes from a prepared statement, made and closed without running the
   * query. Planning first would take the schema from the FlightInfo in one call, but this server
   * runs the query for its FlightInfo and holds a pooled connection until the result is read, so a
   * pushed read (another query) would leave that connection held: a handful of such reads exhaust
   * its pool and every later call waits.
   */
  @Override
  public List<String> repeatedReadCalls() {
    return List.of(
        "DoAction(CreatePreparedStatement)",
        "DoAction(ClosePreparedStatement)",
        "PollFlightInfo(CommandStatementQuery)",
        "DoGet");
  }

  @Override
  public String fuzzDialect() {
    return "derby";
  }

  @Override
  protected ServerQuirks startServer() throws Exception {
    server = DerbyExampleServer.start("derby-example-it");
    return new DerbyQuirks(server.uri());
  }

  @Override
  protected void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void readsTheTableTheExampleStartsWith() {
    Dataset<Row> ints = flightsql().option("dbtable", "intTable").load();

    assertThat(describe(ints.schema()))
        .containsExactly("ID: int", "KEYNAME: string", "VALUE: int", "FOREIGNID: int");
    List<List<Object>> rows = values(ints.collectAsList());
    rows.sort(Comparator.comparingInt(row -> (Integer) row.get(0)));
    assertThat(rows)
        .containsExactly(
            Arrays.asList(1, "one", 1, 1),
            Arrays.asList(2, "zero", 0, 1),
            Arrays.asList(3, "negative one", -1, 1));
  }

  @Test
  void joinsTwoTablesOnTheServer() {
    Dataset<Row> joined =
        flightsql()
            .option(
                "query",
                "SELECT i.keyName, f.foreignName FROM intTable i JOIN foreignTable f"
                    + " ON i.foreignId = f.id WHERE i.value >= 0 ORDER BY i.value")
            .load();

    List<Row> rows = joined.collectAsList();

    assertThat(values(rows))
        .containsExactly(Arrays.asList("zero", "keyOne"), Arrays.asList("one", "keyOne"));
  }

  /**
   * The catalog over Derby: schemas only (GetCatalogs lists none), upper-case names found from the
   * lower-case ones users type, and every statement the catalog runs.
   */
  @Test
  void catalogShowsDescribesReadsAndWritesDerbysTables() {
    CatalogStatements derby = new CatalogStatements(spark(), "derby", server.uri());
    assertThat(derby.rows("SHOW NAMESPACES IN derby")).contains("APP", "SYS");
    assertThat(derby.rows("SHOW TABLES IN derby.app"))
        .contains("APP|INTTABLE|false", "APP|FOREIGNTABLE|false");
    assertThat(
            CatalogStatements.rows(
                derby.sql("DESCRIBE TABLE derby.app.inttable").select("col_name", "data_type")))
        .startsWith("ID|int", "KEYNAME|string", "VALUE|int", "FOREIGNID|int");

    Dataset<Row> pushed =
        derby.sql("SELECT keyName FROM derby.app.intTable WHERE value >= 0 ORDER BY value");
    assertThat(CatalogStatements.rows(pushed)).containsExactly("zero", "one");
    assertThat(CatalogStatements.explain(pushed))
        .contains("Dialect: derby")
        .contains("PushedFilters: [");

    derby.sql("CREATE TABLE derby.app.cat_people (id INT NOT NULL, name STRING)");
    derby.sql("INSERT INTO derby.app.cat_people VALUES (1, 'ann'), (2, 'bob')");
    assertThat(derby.rows("SELECT * FROM derby.app.cat_people ORDER BY id"))
        .containsExactly("1|ann", "2|bob");
    // No transactions on Derby: the old rows are deleted, then the new ones written.
    derby.sql("INSERT OVERWRITE derby.app.cat_people SELECT 3, 'cy'");
    assertThat(derby.rows("SELECT * FROM derby.app.cat_people")).containsExactly("3|cy");
    derby.sql("ALTER TABLE derby.app.cat_people RENAME TO cat_persons");
    assertThat(derby.rows("SHOW TABLES IN derby.app"))
        .contains("APP|cat_persons|false")
        .doesNotContain("APP|cat_people|false");
    derby.sql(
        "CREATE TABLE derby.app.cat_copy AS SELECT id * 10 AS id, name FROM derby.app.cat_persons");
    assertThat(derby.rows("SELECT * FROM derby.app.cat_copy")).containsExactly("30|cy");
    derby.sql("DROP TABLE derby.app.cat_persons");
    derby.sql("DROP TABLE derby.app.cat_copy");
    assertThat(derby.rows("SHOW TABLES IN derby.app"))
        .doesNotContain("APP|cat_persons|false", "APP|cat_copy|false");
  }

  /**
   * Derby folds unquoted names to upper case: a DataFrame with lower-case columns, in another
   * order, appends to a table created as {@code byname_it (id, name)} (so {@code BYNAME_IT (ID,
   * NAME)}), and a missing NOT NULL column fails before any task, naming it.
   */
  @Test
  void writesMatchUpperCaseColumnsByName() {
    quirks.executeUpdate("CREATE TABLE byname_it (id INT NOT NULL, name VARCHAR(20))");
    for (String method : new String[] {"ingest", "prepared"}) {
      spark()
          .sql("SELECT 'ann' AS name, 1 AS id")
          .write()
          .format("flightsql")
          .option("uri", server.uri())
          .option("dbtable", "byname_it")
          .option("writeMethod", method)
          .mode("append")
          .save();
    }
    assertThat(values(flightsql().option("dbtable", "BYNAME_IT").load().collectAsList()))
        .containsExactly(Arrays.asList(1, "ann"), Arrays.asList(1, "ann"));

    spark()
        .sql("SELECT 'bob' AS Name, 2 AS Id")
        .write()
        .format("flightsql")
        .option("uri", server.uri())
        .option("dbtable", "byname_it")
        .option("truncate", "true")
        .mode("overwrite")
        .save();
    assertThat(values(flightsql().option("dbtable", "BYNAME_IT").load().collectAsList()))
        .containsExactly(Arrays.asList(2, "bob"));

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                spark()
                    .sql("SELECT 'cy' AS name")
                    .write()
                    .format("flightsql")
                    .option("uri", server.uri())
                    .option("dbtable", "byname_it")
                    .mode("append")
                    .save())
        .hasMessageContaining("has NOT NULL column 'ID', which the DataFrame does not have");
  }

  /** Derby: upper-case names, {@code TIMESTAMP} as UTC instants, Derby's syntax error text. */
  private static final class DerbyQuirks extends ServerQuirks {
    private final String uri;

    DerbyQuirks(String uri) {
      this.uri = uri;
    }

    /** Derby has no TINYINT, and decimals of at most 31 digits. */
    @Override
    List<NumericColumn> numericColumns() {
      return standardNumericColumns(false, "INTEGER", "c_real", "REAL", 25);
    }

    @Override
    String name() {
      return "Derby (FlightSqlExample)";
    }

    @Override
    String uri() {
      return uri;
    }

    /**
     * Arrow's JDBC parameter binder gives a zoned timestamp to Derby as JDBC type 2014
     * (TIMESTAMP_WITH_TIMEZONE), which Derby refuses; a zone-less one binds as TIMESTAMP.
     */
    @Override
    org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> writable(
        org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> read) {
      String column = reportedName(ContractColumn.SEEN_AT.sqlName());
      return read.withColumn(column, read.col(column).cast("timestamp_ntz"));
    }

    @Override
    String reportedName(String sqlName) {
      return sqlName.toUpperCase(Locale.ROOT);
    }

    @Override
    String catalogNamespace() {
      return "app";
    }

    @Override
    String secondSchema() {
      return "NAMES_SECOND";
    }

    @Override
    String ddlType(ContractColumn column) {
      return byColumn(column, "INT", "VARCHAR(100)", "DOUBLE", "TIMESTAMP");
    }

    @Override
    DataType sparkType(ContractColumn column) {
      return byColumn(
          column,
          DataTypes.IntegerType,
          DataTypes.StringType,
          DataTypes.DoubleType,
          DataTypes.TimestampType);
    }

    @Override
    String literal(ContractColumn column, Object value) {
      if (column == ContractColumn.SEEN_AT && value != null) {
        // Derby has no TIMESTAMP '...' literal; its TIMESTAMP() function parses the same text.
        return "TIMESTAMP('" + SQL_TIMESTAMP.format((LocalDateTime) value) + "')";
      }
      return super.literal(column, value);
    }

    @Override
    Object sparkValue(ContractColumn column, Object value) {
      if (column == ContractColumn.SEEN_AT && value != null) {
        // The example reads Derby's zone-less TIMESTAMP with a UTC calendar.
        return ((LocalDateTime) value).toInstant(ZoneOffset.UTC);
      }
      return super.sparkValue(column, value);
    }

    @Override
    String syntaxErrorText() {
      return "Syntax error: Encountered \"SELEKT\"";
    }

    /**
     * Derby pads the shorter of two strings with spaces ({@code 'a' = 'a '}), which its dialect
     * knows: no string column is compared in SQL pushed to it, and Spark compares names.
     */
    @Override
    boolean pushes(String query) {
      return !query.contains("name =")
          && !query.contains("name LIKE")
          && !query.contains("name <=>");
    }

    /** The contract's joins are on names, which Derby does not compare as Spark does. */
    @Override
    boolean pushesJoins() {
      return false;
    }
  }
}
