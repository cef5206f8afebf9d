package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A table name that two schemas of the embedded DuckDB server share: {@code main.orders} (5 rows,
 * in the server's default schema) and {@code analytics.orders} (3 rows, and one column more). A
 * name without its schema means what the server's own SQL means by it, {@code main.orders}, for
 * reads, every save mode of a write, and the catalog; a qualified name means the table it names;
 * where the server's current schema cannot be established (option {@code dialect=ansi}, whose SQL
 * has no query for it, on a server without sessions), the name is refused, listing both tables. Row
 * counts are checked on the server after each operation.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class TableNamesTest {
  private static final String BOTH =
      "\"memory\".\"analytics\".\"orders\", \"memory\".\"main\".\"orders\"";

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).lineitemRows(0));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void catalogs() {
    SparkSession session = spark.session();
    session.conf().set("spark.sql.catalog.flight", "io.flightsql.spark.FlightSqlCatalog");
    session.conf().set("spark.sql.catalog.flight.uri", duckDb.uri());
    session.conf().set("spark.sql.catalog.ansi", "io.flightsql.spark.FlightSqlCatalog");
    session.conf().set("spark.sql.catalog.ansi.uri", duckDb.uri());
    session.conf().set("spark.sql.catalog.ansi.dialect", "ansi");
  }

  @BeforeEach
  void twoTablesNamedOrders() {
    duckDb.server().execute("DROP TABLE IF EXISTS main.orders");
    duckDb.server().execute("DROP TABLE IF EXISTS main.fresh");
    duckDb.server().execute("CREATE SCHEMA IF NOT EXISTS analytics");
    duckDb.server().execute("DROP TABLE IF EXISTS analytics.orders");
    duckDb.server().execute("CREATE TABLE main.orders (id INTEGER, amount DOUBLE)");
    duckDb
        .server()
        .execute("INSERT INTO main.orders VALUES (1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0), (5, 5.0)");
    duckDb
        .server()
        .execute("CREATE TABLE analytics.orders (id INTEGER, amount DOUBLE, note VARCHAR)");
    duckDb
        .server()
        .execute("INSERT INTO analytics.orders VALUES (1, 1.0, 'a'), (2, 2.0, 'b'), (3, 3.0, 'c')");
  }

  private static long count(String sql) throws Exception {
    try (Connection c = duckDb.server().newConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Rows in main.orders, in analytics.orders, and in what the server's own SQL calls orders. */
  private static List<Long> counts() throws Exception {
    List<Long> out = new ArrayList<>();
    out.add(count("SELECT count(*) FROM main.orders"));
    out.add(count("SELECT count(*) FROM analytics.orders"));
    out.add(count("SELECT count(*) FROM orders"));
    return out;
  }

  private static long stagingTablesLeft() throws Exception {
    return count(
        "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE"
            + " 'orders\\_flightsql\\_%' ESCAPE '\\'");
  }

  private static Dataset<Row> twoRows() {
    return spark
        .session()
        .sql("SELECT CAST(id AS INT) AS id, id * 1.5D AS amount FROM range(100, 102)");
  }

  private static DataFrameWriter<Row> writer(String dbtable) {
    return twoRows()
        .write()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", dbtable);
  }

  private static long readCount(String dbtable) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", dbtable)
        .load()
        .count();
  }

  private static List<String> rows(String sql) {
    List<String> out = new ArrayList<>();
    for (Row row : spark.session().sql(sql).collectAsList()) {
      out.add(row.mkString("|"));
    }
    return out;
  }

  @Test
  void readsByDbtableReadTheTableTheServerMeans() {
    assertThat(readCount("orders")).isEqualTo(5);
    assertThat(readCount("analytics.orders")).isEqualTo(3);
    assertThat(readCount("main.orders")).isEqualTo(5);
  }

  /** Each save mode, on the unqualified name: main.orders changes, analytics.orders stays. */
  @ParameterizedTest(name = "mode={0} truncate={1} atomic={2}")
  @CsvSource({
    "append, false, auto, 7",
    "append, false, false, 7",
    "overwrite, false, auto, 2",
    "overwrite, false, false, 2",
    "overwrite, true, auto, 2",
    "overwrite, true, false, 2",
    "ignore, false, auto, 5",
    "ignore, false, false, 5"
  })
  void everySaveModeWritesTheTableInTheServersDefaultSchema(
      String mode, boolean truncate, String atomic, long mainRows) throws Exception {
    writer("orders")
        .mode(mode)
        .option("truncate", String.valueOf(truncate))
        .option("atomic", atomic)
        .save();

    assertThat(counts()).containsExactly(mainRows, 3L, mainRows);
    assertThat(readCount("orders")).isEqualTo(mainRows);
    assertThat(stagingTablesLeft()).isZero();
  }

  @Test
  void errorIfExistsFindsTheTableInTheServersDefaultSchema() throws Exception {
    assertThatThrownBy(() -> writer("orders").mode("errorifexists").save())
        .hasMessageContaining("[flightsql] Table \"orders\" already exists on " + duckDb.uri());
    assertThat(counts()).containsExactly(5L, 3L, 5L);

    writer("fresh").mode("errorifexists").save();
    assertThat(count("SELECT count(*) FROM main.fresh")).isEqualTo(2);
  }

  @ParameterizedTest(name = "mode={0} truncate={1} atomic={2}")
  @CsvSource({
    "append, false, auto, 5",
    "append, false, false, 5",
    "overwrite, false, auto, 2",
    "overwrite, true, false, 2"
  })
  void aQualifiedNameWritesTheTableItNames(
      String mode, boolean truncate, String atomic, long analyticsRows) throws Exception {
    writer("analytics.orders")
        .mode(mode)
        .option("truncate", String.valueOf(truncate))
        .option("atomic", atomic)
        .save();

    assertThat(counts()).containsExactly(5L, analyticsRows, 5L);
    assertThat(readCount("analytics.orders")).isEqualTo(analyticsRows);
  }

  @Test
  void optionSchemaQualifiesTheName() throws Exception {
    writer("orders").mode("append").option("schema", "analytics").save();
    assertThat(counts()).containsExactly(5L, 5L, 5L);
  }

  @Test
  void catalogStatementsOnTheUnqualifiedNameActOnTheServersDefaultSchema() throws Exception {
    assertThat(rows("SHOW TABLES IN flight.memory.main")).contains("memory.main|orders|false");
    assertThat(rows("SHOW TABLES IN flight.memory.analytics"))
        .contains("memory.analytics|orders|false");
    assertThat(rows("SELECT count(*) FROM flight.orders")).containsExactly("5");
    assertThat(spark.session().catalog().tableExists("flight.orders")).isTrue();
    assertThat(rows("DESCRIBE TABLE flight.orders"))
        .contains("id|int|null", "amount|double|null")
        .noneMatch(r -> r.startsWith("note|"));
    assertThat(spark.session().table("flight.orders").columns()).containsExactly("id", "amount");

    spark.session().sql("INSERT INTO flight.orders VALUES (200, 2.5)").collect();
    assertThat(counts()).containsExactly(6L, 3L, 6L);

    spark.session().sql("INSERT OVERWRITE flight.orders VALUES (300, 3.5)").collect();
    assertThat(counts()).containsExactly(1L, 3L, 1L);

    assertThatThrownBy(
            () -> spark.session().sql("CREATE TABLE flight.orders AS SELECT 1 AS id").collect())
        .hasMessageContaining("orders")
        .hasMessageContaining("already exists");
    assertThat(counts()).containsExactly(1L, 3L, 1L);

    spark.session().sql("DROP TABLE flight.orders").collect();
    assertThat(
            count(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' AND"
                    + " table_name = 'orders'"))
        .isZero();
    assertThat(count("SELECT count(*) FROM analytics.orders")).isEqualTo(3);
  }

  @Test
  void createTableAsSelectWithoutSchemaCreatesInTheServersDefaultSchema() throws Exception {
    spark.session().sql("CREATE TABLE flight.fresh AS SELECT 7 AS id").collect();
    assertThat(count("SELECT count(*) FROM main.fresh")).isEqualTo(1);
    assertThat(rows("SELECT id FROM flight.fresh")).containsExactly("7");
  }

  @Test
  void catalogStatementsOnAQualifiedNameActOnTheNamedSchema() throws Exception {
    assertThat(rows("SELECT count(*) FROM flight.analytics.orders")).containsExactly("3");
    assertThat(rows("SELECT count(*) FROM flight.memory.analytics.orders")).containsExactly("3");
    spark.session().sql("INSERT INTO flight.analytics.orders VALUES (9, 9.0, 'z')").collect();
    assertThat(counts()).containsExactly(5L, 4L, 5L);
    spark.session().sql("DROP TABLE flight.memory.analytics.orders").collect();
    assertThat(count("SELECT count(*) FROM main.orders")).isEqualTo(5);
    assertThat(
            count(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'analytics'"))
        .isZero();
  }

  /**
   * With option {@code dialect=ansi} the connector has no query for the server's current schema,
   * and the server has no session options to say it: the name is refused, naming both tables and
   * how to name one, and nothing changes. A read sends the name to the server, which resolves it.
   */
  @Test
  void anAmbiguousNameIsRefusedWhereTheCurrentSchemaCannotBeEstablished() throws Exception {
    for (String mode : new String[] {"append", "overwrite", "ignore", "errorifexists"}) {
      assertThatThrownBy(() -> writer("orders").option("dialect", "ansi").mode(mode).save())
          .hasMessageContaining("[flightsql] Table \"orders\" names 2 tables on " + duckDb.uri())
          .hasMessageContaining(BOTH)
          .hasMessageContaining("current schema, which could not be established")
          .hasMessageContaining("GetSessionOptions is not implemented")
          .hasMessageContaining(
              "Name the table with its schema, as option 'dbtable' takes it"
                  + " (\"memory\".\"analytics\".\"orders\") or as a catalog identifier"
                  + " (<catalog>.memory.analytics.orders), or set option 'schema'.");
      assertThat(counts()).containsExactly(5L, 3L, 5L);
    }
    assertThatThrownBy(() -> rows("SELECT count(*) FROM ansi.orders"))
        .hasMessageContaining("names 2 tables")
        .hasMessageContaining(BOTH);
    assertThatThrownBy(() -> rows("DROP TABLE ansi.orders"))
        .hasMessageContaining("names 2 tables")
        .hasMessageContaining(BOTH);
    assertThat(counts()).containsExactly(5L, 3L, 5L);

    assertThat(rows("SELECT count(*) FROM ansi.memory.analytics.orders")).containsExactly("3");
    writer("analytics.orders").option("dialect", "ansi").mode("append").save();
    assertThat(counts()).containsExactly(5L, 5L, 5L);
  }
}
