package io.flightsql.spark.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.server.RecordedCall;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.ExplainMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The catalog, {@code spark.sql.catalog.flight=io.flightsql.spark.FlightSqlCatalog}, over the
 * embedded DuckDB server (catalog {@code memory}, schema {@code main}): what each statement shows
 * and does, checked on the server, and how many calls its metadata costs.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class FlightSqlCatalogTest {
  private static final String T = "flight.memory.main.";

  private static final CallRecorder RECORDER = new CallRecorder();

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(
          server ->
              server
                  .port(0)
                  .lineitemRows(0)
                  .middleware(CallRecorder.KEY, RECORDER)
                  .actionObserver(RECORDER::actionStarted));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void catalogsAndTable() {
    SparkSession session = spark.session();
    DuckDbFlightSqlServer server = duckDb.server();
    session.conf().set("spark.sql.catalog.flight", "io.flightsql.spark.FlightSqlCatalog");
    session.conf().set("spark.sql.catalog.flight.uri", duckDb.uri());
    session.conf().set("spark.sql.catalog.nouri", "io.flightsql.spark.FlightSqlCatalog");
    session.conf().set("spark.sql.catalog.noPush", "io.flightsql.spark.FlightSqlCatalog");
    session.conf().set("spark.sql.catalog.noPush.uri", duckDb.uri());
    session.conf().set("spark.sql.catalog.noPush.pushDownPredicate", "false");
    session.conf().set("spark.sql.catalog.noPush.header.x-api-key", "catalog-secret-value");
    server.execute("CREATE TABLE orders (id INTEGER NOT NULL, customer VARCHAR, amount DOUBLE)");
    server.execute(
        "INSERT INTO orders VALUES (1, 'ann', 10.5), (2, 'bob', 20.0), (3, 'ann', 5.25),"
            + " (4, NULL, 7.0)");
  }

  private static List<String> rows(String sql) {
    return rows(spark.session().sql(sql));
  }

  private static List<String> rows(Dataset<Row> df) {
    List<String> out = new ArrayList<>();
    for (Row row : df.collectAsList()) {
      out.add(row.mkString("|"));
    }
    return out;
  }

  private static String explain(Dataset<Row> df) {
    return df.queryExecution().explainString(ExplainMode.fromString("formatted"));
  }

  @Test
  void namespacesAreTheServersCatalogsAndSchemas() {
    assertThat(rows("SHOW NAMESPACES IN flight")).containsExactly("memory");
    assertThat(rows("SHOW NAMESPACES IN flight.memory")).containsExactly("memory.main");
    assertThat(rows("SHOW NAMESPACES IN flight.memory.main")).isEmpty();
    assertThatThrownBy(() -> spark.session().sql("SHOW NAMESPACES IN flight.nowhere").collect())
        .hasMessageContaining("nowhere");
  }

  @Test
  void showTablesListsTheSchemasTables() {
    assertThat(rows("SHOW TABLES IN flight.memory.main"))
        .contains("memory.main|orders|false")
        .doesNotContain("memory.main|lineitem_copy|false");
  }

  @Test
  void describeShowsTheServersColumnsAndTypes() {
    List<String> described =
        rows(spark.session().sql("DESCRIBE TABLE " + T + "orders").select("col_name", "data_type"));
    assertThat(described.subList(0, 3))
        .containsExactly("id|int", "customer|string", "amount|double");
  }

  @Test
  void selectPushesFiltersAggregatesAndTopN() {
    Dataset<Row> filtered =
        spark
            .session()
            .sql("SELECT id, amount FROM " + T + "orders WHERE amount > 6 ORDER BY id LIMIT 2");
    assertThat(rows(filtered)).containsExactly("1|10.5", "2|20.0");
    assertThat(explain(filtered))
        .contains("PushedFilters: [")
        .contains("amount > 6")
        .contains("PushedTopN: ORDER BY");

    Dataset<Row> grouped =
        spark
            .session()
            .sql(
                "SELECT customer, SUM(amount) FROM "
                    + T
                    + "orders WHERE customer IS NOT NULL GROUP BY customer ORDER BY customer");
    assertThat(rows(grouped)).containsExactly("ann|15.75", "bob|20.0");
    assertThat(explain(grouped)).contains("PushedAggregates: [SUM(amount)]");
  }

  @Test
  void catalogPropertiesAreOptionsAndAStatementsOptionsBeatThem() {
    Dataset<Row> unpushed =
        spark.session().sql("SELECT id FROM noPush.memory.main.orders WHERE id > 2");
    assertThat(rows(unpushed)).containsExactlyInAnyOrder("3", "4");
    assertThat(explain(unpushed)).contains("PushedFilters: []");

    Dataset<Row> pushed =
        spark
            .session()
            .read()
            .option("pushDownPredicate", "true")
            .table("noPush.memory.main.orders")
            .filter("id > 2")
            .select("id");
    assertThat(rows(pushed)).containsExactlyInAnyOrder("3", "4");
    assertThat(explain(pushed)).contains("id > 2").doesNotContain("PushedFilters: []");
    assertThat(
            explain(pushed)
                + explain(unpushed)
                + rows("DESCRIBE TABLE EXTENDED noPush.memory.main.orders"))
        .doesNotContain("catalog-secret-value");
  }

  @Test
  void aCatalogWithoutUriFailsNamingTheOption() {
    assertThatThrownBy(() -> spark.session().sql("SHOW NAMESPACES IN nouri").collect())
        .hasMessageContaining("Option 'uri' is required");
  }

  @Test
  void createInsertOverwriteRenameAndDrop() throws Exception {
    spark.session().sql("CREATE TABLE " + T + "people (id INT NOT NULL, name STRING)");
    assertThat(rows("SHOW TABLES IN flight.memory.main")).contains("memory.main|people|false");

    spark.session().sql("INSERT INTO " + T + "people VALUES (1, 'ann'), (2, 'bob')");
    spark.session().sql("INSERT INTO " + T + "people SELECT 3, 'cy'");
    assertThat(rows("SELECT * FROM " + T + "people ORDER BY id"))
        .containsExactly("1|ann", "2|bob", "3|cy");

    // DuckDB has transactions: the overwrite is atomic, through staging tables dropped at commit.
    spark.session().sql("INSERT OVERWRITE " + T + "people VALUES (7, 'zed')");
    assertThat(rows("SELECT * FROM " + T + "people")).containsExactly("7|zed");
    assertThat(rows("SHOW TABLES IN flight.memory.main")).noneMatch(t -> t.contains("_flightsql_"));

    spark.session().sql("SELECT 'eve' AS NAME, 8 AS Id").writeTo(T + "people").append();
    assertThat(rows("SELECT * FROM " + T + "people ORDER BY id")).containsExactly("7|zed", "8|eve");
    duckDb.server().execute("DELETE FROM people WHERE id = 8");

    assertThatThrownBy(
            () -> spark.session().sql("INSERT INTO " + T + "people VALUES (NULL, 'x')").collect())
        .hasMessageContaining("id");

    spark.session().sql("ALTER TABLE " + T + "people RENAME TO persons");
    assertThat(rows("SELECT * FROM " + T + "persons")).containsExactly("7|zed");
    assertThat(rows("SHOW TABLES IN flight.memory.main"))
        .contains("memory.main|persons|false")
        .doesNotContain("memory.main|people|false");

    spark.session().sql("DROP TABLE " + T + "persons");
    assertThat(rows("SHOW TABLES IN flight.memory.main"))
        .doesNotContain("memory.main|persons|false");
    assertThatThrownBy(() -> spark.session().sql("SELECT * FROM " + T + "persons").collect())
        .hasMessageContaining("persons");
  }

  @Test
  void createTableAsSelectUsesTheDialectsTypes() throws Exception {
    spark
        .session()
        .sql(
            "CREATE TABLE "
                + T
                + "summary AS SELECT customer, CAST(SUM(amount) AS DECIMAL(10,2)) AS total,"
                + " DATE'2024-01-02' AS day FROM "
                + T
                + "orders WHERE customer IS NOT NULL GROUP BY customer");
    assertThat(rows("SELECT * FROM " + T + "summary ORDER BY customer"))
        .containsExactly("ann|15.75|2024-01-02", "bob|20.00|2024-01-02");
    try (java.sql.Connection c = duckDb.server().newConnection();
        java.sql.ResultSet types =
            c.createStatement()
                .executeQuery(
                    "SELECT column_name, data_type FROM information_schema.columns"
                        + " WHERE table_name = 'summary' ORDER BY ordinal_position")) {
      List<String> columns = new ArrayList<>();
      while (types.next()) {
        columns.add(types.getString(1) + " " + types.getString(2));
      }
      assertThat(columns).containsExactly("customer VARCHAR", "total DECIMAL(10,2)", "day DATE");
    }
    spark.session().sql("DROP TABLE " + T + "summary");
  }

  @Test
  void whatFlightSqlCannotSayIsRefusedClearly() throws Exception {
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .sql("CREATE TABLE " + T + "parted (id INT, day DATE) PARTITIONED BY (day)")
                    .collect())
        .hasMessageContaining("cannot create partitioned tables (PARTITIONED BY)");
    duckDb.server().execute("CREATE TABLE unrenamed (id INTEGER)");
    spark.session().conf().set("spark.sql.catalog.ansi", "io.flightsql.spark.FlightSqlCatalog");
    spark.session().conf().set("spark.sql.catalog.ansi.uri", duckDb.uri());
    spark.session().conf().set("spark.sql.catalog.ansi.dialect", "ansi");
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .sql("ALTER TABLE ansi.memory.main.unrenamed RENAME TO other")
                    .collect())
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Dialect 'ansi' has no statement to rename a table");
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .sql("ALTER TABLE " + T + "unrenamed ADD COLUMN note STRING")
                    .collect())
        .hasMessageContaining("does not alter tables, other than ALTER TABLE ... RENAME TO");
  }

  @Test
  void namespaceStatementsAreRefusedClearly() {
    assertThatThrownBy(() -> spark.session().sql("CREATE NAMESPACE flight.memory.other").collect())
        .hasMessageContaining("does not run CREATE NAMESPACE")
        .hasMessageContaining("the server's catalogs and schemas");
  }

  /**
   * Planning a SELECT costs one GetTables (the table and its columns) and the query's own
   * PollFlightInfo; the server's capabilities are asked once per catalog, not per query.
   */
  @Test
  void metadataIsFetchedOncePerQuery() {
    rows("SELECT * FROM " + T + "orders WHERE id = 1");
    RECORDER.clear();
    Dataset<Row> df = spark.session().sql("SELECT * FROM " + T + "orders WHERE id = 1");
    List<String> planning = methods();
    assertThat(rows(df)).containsExactly("1|ann|10.5");
    List<String> all = methods();
    // Loading the table: GetFlightInfo(GetTables) + DoGet of its answer.
    assertThat(planning).containsExactly("GetFlightInfo", "DoGet");
    // Running it: one PollFlightInfo of the query (the embedded server answers it complete), then
    // a DoGet per endpoint; no more metadata.
    assertThat(all.subList(0, 3)).containsExactly("GetFlightInfo", "DoGet", "PollFlightInfo");
    assertThat(all.subList(3, all.size())).isNotEmpty().containsOnly("DoGet");
  }

  /**
   * An INSERT loads the table once (one GetTables) and asks nothing more before its rows go out:
   * the capabilities the catalog learnt are reused by the write's plan. Each task creates its
   * staging table and ingests into it; the job's commit moves their rows in one transaction, drops
   * them and lists the job's staging tables once, for any a failed attempt left.
   */
  @Test
  void anInsertLoadsTheTableOnceAndThenOnlyWrites() {
    duckDb.server().execute("CREATE TABLE counted (id INTEGER)");
    spark.session().sql("INSERT INTO " + T + "counted VALUES (0)");
    RECORDER.clear();
    spark.session().sql("INSERT INTO " + T + "counted VALUES (1), (2)");
    List<String> calls = methods();
    assertThat(calls.subList(0, 2)).containsExactly("GetFlightInfo", "DoGet");
    int begin = calls.indexOf("DoAction:BeginTransaction");
    int end = calls.indexOf("DoAction:EndTransaction");
    // Two tasks: CREATE TABLE of the staging table, then its ingestion.
    assertThat(calls.subList(2, begin)).containsExactly("DoPut", "DoPut", "DoPut", "DoPut");
    // The commit: INSERT ... SELECT from each staging table.
    assertThat(calls.subList(begin + 1, end)).containsExactly("DoPut", "DoPut");
    // Two DROP TABLEs, then the one listing of the job's staging tables (GetTables).
    assertThat(calls.subList(end + 1, calls.size()))
        .containsExactly("DoPut", "DoPut", "GetFlightInfo", "DoGet");
    assertThat(rows("SELECT count(*) FROM " + T + "counted")).containsExactly("3");
  }

  private static List<String> methods() {
    return RECORDER.calls().stream()
        .map(RecordedCall::method)
        .filter(m -> !m.startsWith("Handshake"))
        .collect(Collectors.toList());
  }
}
