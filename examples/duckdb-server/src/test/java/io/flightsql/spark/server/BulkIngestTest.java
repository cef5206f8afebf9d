package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.ExecuteIngestOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.UnionVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bulk ingestion through Arrow's own Flight SQL client: each table-definition combination,
 * catalogs, schemas and temporary tables, transactions, and failures that leave nothing behind.
 */
class BulkIngestTest {

  private static final TableNotExistOption CREATE =
      TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE;
  private static final TableNotExistOption FAIL_IF_MISSING =
      TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL;
  private static final TableExistsOption FAIL_IF_EXISTS =
      TableExistsOption.TABLE_EXISTS_OPTION_FAIL;
  private static final TableExistsOption APPEND = TableExistsOption.TABLE_EXISTS_OPTION_APPEND;
  private static final TableExistsOption REPLACE = TableExistsOption.TABLE_EXISTS_OPTION_REPLACE;

  private static DuckDbFlightSqlServer server;
  private static TestClient client;

  @BeforeAll
  static void start() throws Exception {
    server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
    client = new TestClient(server);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
  }

  static ExecuteIngestOptions options(
      String table, TableNotExistOption ifNotExist, TableExistsOption ifExists) {
    return options(table, ifNotExist, ifExists, false, null, null);
  }

  static ExecuteIngestOptions options(
      String table,
      TableNotExistOption ifNotExist,
      TableExistsOption ifExists,
      boolean temporary,
      String catalog,
      String schema) {
    TableDefinitionOptions definition =
        TableDefinitionOptions.newBuilder().setIfNotExist(ifNotExist).setIfExists(ifExists).build();
    return new ExecuteIngestOptions(table, definition, temporary, catalog, schema, Map.of());
  }

  /** Rows of (id INTEGER, name VARCHAR), with ids from {@code first}. */
  private static VectorSchemaRoot people(int first, String... names) {
    VectorSchemaRoot root =
        VectorSchemaRoot.create(
            new Schema(
                List.of(
                    Field.nullable("id", new ArrowType.Int(32, true)),
                    Field.nullable("name", ArrowType.Utf8.INSTANCE))),
            client.allocator);
    root.allocateNew();
    for (int i = 0; i < names.length; i++) {
      ((IntVector) root.getVector("id")).setSafe(i, first + i);
      ((VarCharVector) root.getVector("name"))
          .setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
    }
    root.setRowCount(names.length);
    return root;
  }

  private static long ingest(VectorSchemaRoot data, ExecuteIngestOptions options) {
    try (data) {
      return client.sql.executeIngest(data, options);
    }
  }

  private static List<List<String>> rows(String sql) throws Exception {
    return TestClient.jdbcRows(server, sql);
  }

  private static FlightStatusCode status(Throwable e) {
    return ((FlightRuntimeException) e).status().code();
  }

  @Test
  void createMakesANewTableAndFailsWhenItExists() throws Exception {
    assertThat(ingest(people(1, "ann", "bob"), options("created", CREATE, FAIL_IF_EXISTS)))
        .isEqualTo(2);
    assertThat(rows("SELECT * FROM created ORDER BY id"))
        .containsExactly(List.of("1", "ann"), List.of("2", "bob"));

    assertThatThrownBy(() -> ingest(people(3, "cy"), options("created", CREATE, FAIL_IF_EXISTS)))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.ALREADY_EXISTS))
        .hasMessageContaining("Table \"memory\".\"main\".\"created\" already exists")
        .hasMessageContaining("if_exists is FAIL");
    assertThat(rows("SELECT count(*) FROM created")).containsExactly(List.of("2"));
  }

  @Test
  void appendAddsRowsByNameAndFailsWhenTheTableIsMissing() throws Exception {
    server.execute("CREATE TABLE appended (name VARCHAR, id INTEGER, note VARCHAR DEFAULT 'd')");
    assertThat(ingest(people(1, "ann"), options("appended", FAIL_IF_MISSING, APPEND))).isEqualTo(1);
    assertThat(ingest(people(2, "bob", "cy"), options("APPENDED", FAIL_IF_MISSING, APPEND)))
        .isEqualTo(2);
    // Columns match by name, in any case; the table's missing column gets its default.
    assertThat(rows("SELECT id, name, note FROM appended ORDER BY id"))
        .containsExactly(
            List.of("1", "ann", "d"), List.of("2", "bob", "d"), List.of("3", "cy", "d"));

    assertThatThrownBy(() -> ingest(people(1, "x"), options("missing", FAIL_IF_MISSING, APPEND)))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND))
        .hasMessageContaining("Table \"memory\".\"main\".\"missing\" does not exist");
  }

  @Test
  void createOrAppendDoesBoth() throws Exception {
    assertThat(ingest(people(1, "ann"), options("create_append", CREATE, APPEND))).isEqualTo(1);
    assertThat(ingest(people(2, "bob"), options("create_append", CREATE, APPEND))).isEqualTo(1);
    assertThat(rows("SELECT * FROM create_append ORDER BY id"))
        .containsExactly(List.of("1", "ann"), List.of("2", "bob"));
  }

  @Test
  void replaceDropsTheOldTableWithItsColumns() throws Exception {
    server.execute("CREATE TABLE replaced AS SELECT 1.5 AS other, 'old' AS stuff");
    assertThat(ingest(people(7, "new"), options("replaced", CREATE, REPLACE))).isEqualTo(1);
    assertThat(rows("SELECT * FROM replaced")).containsExactly(List.of("7", "new"));
    assertThat(
            rows(
                "SELECT column_name FROM duckdb_columns() WHERE table_name = 'replaced'"
                    + " ORDER BY column_index"))
        .containsExactly(List.of("id"), List.of("name"));
  }

  @Test
  void replaceWithoutCreateNeedsAnExistingTable() {
    assertThatThrownBy(
            () -> ingest(people(1, "x"), options("replace_missing", FAIL_IF_MISSING, REPLACE)))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND))
        .hasMessageContaining("if_not_exist is FAIL");
  }

  @Test
  void ingestGoesIntoTheNamedCatalogAndSchema() throws Exception {
    server.execute("CREATE SCHEMA staging; ATTACH ':memory:' AS scratch");
    ExecuteIngestOptions intoSchema =
        options("people", CREATE, FAIL_IF_EXISTS, false, null, "staging");
    assertThat(ingest(people(1, "ann"), intoSchema)).isEqualTo(1);
    ExecuteIngestOptions intoCatalog =
        options("people", CREATE, FAIL_IF_EXISTS, false, "scratch", null);
    assertThat(ingest(people(1, "bob", "cy"), intoCatalog)).isEqualTo(2);

    assertThat(rows("SELECT name FROM staging.people")).containsExactly(List.of("ann"));
    assertThat(rows("SELECT count(*) FROM scratch.main.people")).containsExactly(List.of("2"));
    assertThat(rows("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'people'"))
        .containsExactly(List.of("2"));
  }

  @Test
  void temporaryTablesLiveAsLongAsTheirTransaction() throws Exception {
    FlightSqlClient.Transaction transaction = client.sql.beginTransaction();
    ExecuteIngestOptions temporary =
        options("scratchpad", CREATE, FAIL_IF_EXISTS, true, null, null);
    try (VectorSchemaRoot data = people(1, "ann", "bob")) {
      assertThat(client.sql.executeIngest(data, temporary, transaction)).isEqualTo(2);
    }
    assertThat(client.rows(client.sql.execute("SELECT count(*) FROM scratchpad", transaction)))
        .containsExactly(List.of("2"));
    assertThat(
            client.rows(
                client.sql.execute(
                    "SELECT database_name, temporary FROM duckdb_tables()"
                        + " WHERE table_name = 'scratchpad'",
                    transaction)))
        .containsExactly(List.of("temp", "true"));
    client.sql.commit(transaction);

    assertThatThrownBy(() -> client.sql.execute("SELECT * FROM scratchpad"))
        .hasMessageContaining("scratchpad does not exist");
  }

  @Test
  void temporaryTablesNeedATransactionAndTheTempNamespace() throws Exception {
    assertThatThrownBy(
            () -> ingest(people(1, "x"), options("tmp", CREATE, FAIL_IF_EXISTS, true, null, null)))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("A temporary table needs a transaction");

    FlightSqlClient.Transaction transaction = client.sql.beginTransaction();
    ExecuteIngestOptions elsewhere = options("tmp", CREATE, FAIL_IF_EXISTS, true, "memory", "main");
    try (VectorSchemaRoot data = people(1, "x")) {
      assertThatThrownBy(() -> client.sql.executeIngest(data, elsewhere, transaction))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("catalog 'temp', schema 'main'");
    }
    client.sql.rollback(transaction);
  }

  @Test
  void badOptionsAreRefusedBeforeAnythingHappens() {
    assertThatThrownBy(
            () ->
                ingest(
                    people(1, "x"),
                    options(
                        "unspecified",
                        TableNotExistOption.TABLE_NOT_EXIST_OPTION_UNSPECIFIED,
                        APPEND)))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("Invalid table_definition_options.if_not_exist");
    TableDefinitionOptions definition =
        TableDefinitionOptions.newBuilder().setIfNotExist(CREATE).setIfExists(APPEND).build();
    ExecuteIngestOptions withOptions =
        new ExecuteIngestOptions("t", definition, false, null, null, Map.of("compress", "yes"));
    assertThatThrownBy(() -> ingest(people(1, "x"), withOptions))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("Unknown ingest options [compress]");
  }

  @Test
  void nonNullableFieldsBecomeNotNullColumns() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
                Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, client.allocator)) {
      root.setRowCount(0);
      assertThat(client.sql.executeIngest(root, options("strict", CREATE, FAIL_IF_EXISTS)))
          .isZero();
    }
    assertThat(
            rows(
                "SELECT column_name, data_type, is_nullable FROM duckdb_columns()"
                    + " WHERE table_name = 'strict' ORDER BY column_index"))
        .containsExactly(List.of("id", "INTEGER", "false"), List.of("name", "VARCHAR", "true"));
  }

  @Test
  void aNotNullViolationInTheThirdBatchLeavesNothingBehind() throws Exception {
    server.execute(
        "CREATE TABLE strict_append (id BIGINT NOT NULL, name VARCHAR, amount DECIMAL(12, 2), ts"
            + " TIMESTAMPTZ)");
    server.execute("INSERT INTO strict_append VALUES (-1, 'before', 0, NULL)");
    try (ArrowReader upload = WriteData.generated(client.allocator, 5, 1_000, 2)) {
      assertThatThrownBy(
              () ->
                  client.sql.executeIngest(
                      upload, options("strict_append", FAIL_IF_MISSING, APPEND)))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("NOT NULL constraint failed");
    }
    assertThat(rows("SELECT id, name FROM strict_append")).containsExactly(List.of("-1", "before"));

    // Created by the same ingest: the table goes too.
    Schema schema =
        new Schema(
            List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, client.allocator)) {
      root.allocateNew();
      ((IntVector) root.getVector("id")).setSafe(0, 1);
      root.setRowCount(2);
      assertThatThrownBy(
              () -> client.sql.executeIngest(root, options("never_made", CREATE, FAIL_IF_EXISTS)))
          .hasMessageContaining("NOT NULL constraint failed");
    }
    assertThat(rows("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'never_made'"))
        .containsExactly(List.of("0"));
  }

  @Test
  void valuesThatDoNotConvertAreInvalidArgumentWithDuckDbsMessage() throws Exception {
    server.execute("CREATE TABLE typed (id INTEGER, name INTEGER)");
    assertThatThrownBy(() -> ingest(people(1, "not a number"), options("typed", CREATE, APPEND)))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("Could not convert string 'not a number' to INT32");
    assertThat(rows("SELECT count(*) FROM typed")).containsExactly(List.of("0"));
  }

  @Test
  void unsupportedColumnsAreRefusedNamingThem() throws Exception {
    Field union =
        new Field(
            "choice",
            FieldType.nullable(new ArrowType.Union(UnionMode.Sparse, new int[] {2})),
            List.of(Field.nullable("int", new ArrowType.Int(32, true))));
    try (VectorSchemaRoot root =
        VectorSchemaRoot.create(new Schema(List.of(union)), client.allocator)) {
      assertThat(root.getVector(0)).isInstanceOf(UnionVector.class);
      root.setRowCount(0);
      assertThatThrownBy(
              () -> client.sql.executeIngest(root, options("unions", CREATE, FAIL_IF_EXISTS)))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("Column 'choice' of Arrow type Union(Sparse, [2])");
    }
  }

  @Test
  void ingestInATransactionIsOnlyVisibleOnceCommitted() throws Exception {
    FlightSqlClient.Transaction rolledBack = client.sql.beginTransaction();
    try (VectorSchemaRoot data = people(1, "ann")) {
      client.sql.executeIngest(data, options("in_tx", CREATE, FAIL_IF_EXISTS), rolledBack);
    }
    assertThat(client.rows(client.sql.execute("SELECT name FROM in_tx", rolledBack)))
        .containsExactly(List.of("ann"));
    assertThat(rows("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'in_tx'"))
        .containsExactly(List.of("0"));
    client.sql.rollback(rolledBack);
    assertThat(rows("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'in_tx'"))
        .containsExactly(List.of("0"));

    FlightSqlClient.Transaction committed = client.sql.beginTransaction();
    try (VectorSchemaRoot data = people(1, "bob")) {
      client.sql.executeIngest(data, options("in_tx", CREATE, FAIL_IF_EXISTS), committed);
    }
    try (VectorSchemaRoot data = people(2, "cy")) {
      client.sql.executeIngest(data, options("in_tx", FAIL_IF_MISSING, APPEND), committed);
    }
    client.sql.commit(committed);
    assertThat(rows("SELECT * FROM in_tx ORDER BY id"))
        .containsExactly(List.of("1", "bob"), List.of("2", "cy"));
  }

  @Test
  void aFailedIngestInATransactionRollsTheTransactionBack() throws Exception {
    server.execute(
        "CREATE TABLE doomed (id BIGINT NOT NULL, name VARCHAR, amount DECIMAL(12, 2),"
            + " ts TIMESTAMPTZ)");
    FlightSqlClient.Transaction transaction = client.sql.beginTransaction();
    client.sql.executeUpdate("INSERT INTO doomed VALUES (0, 'first', 0, NULL)", transaction);
    try (ArrowReader upload = WriteData.generated(client.allocator, 3, 10, 1)) {
      assertThatThrownBy(
              () ->
                  client.sql.executeIngest(
                      upload, options("doomed", FAIL_IF_MISSING, APPEND), transaction))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("NOT NULL constraint failed");
    }
    assertThatThrownBy(() -> client.sql.commit(transaction))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("was rolled back instead of committed")
        .hasMessageContaining("an ingest into table 'doomed' failed")
        .hasMessageContaining("NOT NULL constraint failed");
    assertThat(rows("SELECT count(*) FROM doomed")).containsExactly(List.of("0"));
    assertThat(server.openTransactions()).isZero();
  }

  /** An ingest refused before it wrote anything leaves the transaction as it was. */
  @Test
  void aRefusedIngestLeavesTheTransactionUsable() throws Exception {
    server.execute("CREATE TABLE kept (id INTEGER, name VARCHAR)");
    FlightSqlClient.Transaction transaction = client.sql.beginTransaction();
    client.sql.executeUpdate("INSERT INTO kept VALUES (0, 'first')", transaction);
    try (VectorSchemaRoot data = people(1, "x")) {
      assertThatThrownBy(
              () ->
                  client.sql.executeIngest(
                      data, options("kept", CREATE, FAIL_IF_EXISTS), transaction))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.ALREADY_EXISTS));
      // The caller can take another way within the same transaction.
      assertThat(
              client.sql.executeIngest(data, options("kept", FAIL_IF_MISSING, APPEND), transaction))
          .isEqualTo(1);
    }
    client.sql.commit(transaction);
    assertThat(rows("SELECT * FROM kept ORDER BY id"))
        .containsExactly(List.of("0", "first"), List.of("1", "x"));
  }

  @Test
  void unknownTransactionsAreNotFound() {
    FlightSqlClient.Transaction unknown = new FlightSqlClient.Transaction(new byte[] {1, 2, 3});
    try (VectorSchemaRoot data = people(1, "x")) {
      assertThatThrownBy(
              () -> client.sql.executeIngest(data, options("t", CREATE, APPEND), unknown))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND))
          .hasMessageContaining("Unknown transaction 010203");
    }
  }

  /**
   * A million rows in batches of 10,000: the server holds a few batches at a time, never the
   * upload, and frees everything. Prints the rate, which is a figure to look at, not a test.
   */
  @Test
  void aMillionRowsStreamInWithBoundedMemory() throws Exception {
    try (DuckDbFlightSqlServer fresh = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient freshClient = new TestClient(fresh);
        ArrowReader upload = WriteData.generated(freshClient.allocator, 100, 10_000, -1)) {
      long start = System.nanoTime();
      long rows = freshClient.sql.executeIngest(upload, options("big", CREATE, FAIL_IF_EXISTS));
      long nanos = System.nanoTime() - start;
      System.out.printf(
          "Ingested %,d rows in %,d ms: %,d rows/s; server peak Arrow memory %,d bytes%n",
          rows, nanos / 1_000_000, rows * 1_000_000_000L / nanos, fresh.peakAllocatedBytes());

      assertThat(rows).isEqualTo(1_000_000);
      assertThat(fresh.allocatedBytes()).isZero();
      // One batch is about 0.4 MB; the whole upload about 40 MB.
      assertThat(fresh.peakAllocatedBytes()).isLessThan(8L << 20);
      assertThat(
              TestClient.jdbcRows(
                  fresh,
                  "SELECT count(*), count(DISTINCT id), min(id), max(id), sum(amount) FROM big"))
          .containsExactly(List.of("1000000", "1000000", "0", "999999", "499995000.00"));
    }
  }

  @Test
  void anUploadCancelledHalfwayLeavesNothingBehind() throws Exception {
    try (DuckDbFlightSqlServer fresh = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient freshClient = new TestClient(fresh);
        ArrowReader upload = WriteData.generated(freshClient.allocator, 10, 1_000, -1);
        SyncPutListener results = new SyncPutListener()) {
      CommandStatementIngest command =
          CommandStatementIngest.newBuilder()
              .setTable("cancelled")
              .setTableDefinitionOptions(
                  TableDefinitionOptions.newBuilder()
                      .setIfNotExist(CREATE)
                      .setIfExists(FAIL_IF_EXISTS))
              .build();
      FlightClient.ClientStreamListener put =
          freshClient
              .flight()
              .startPut(
                  FlightDescriptor.command(Any.pack(command).toByteArray()),
                  upload.getVectorSchemaRoot(),
                  results);
      for (int i = 0; i < 3; i++) {
        upload.loadNextBatch();
        put.putNext();
      }
      put.error(CallStatus.CANCELLED.withDescription("changed my mind").toRuntimeException());
      assertThatThrownBy(put::getResult).isInstanceOf(FlightRuntimeException.class);

      // The server notices the broken upload in its own time; its call then frees everything.
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (fresh.allocatedBytes() != 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      Thread.sleep(200);
      assertThat(fresh.allocatedBytes()).isZero();
      assertThat(
              TestClient.jdbcRows(
                  fresh, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'cancelled'"))
          .containsExactly(List.of("0"));
    }
  }

  @Test
  void ingestedRowsReadBackThroughFlight() throws Exception {
    List<List<String>> expected = new ArrayList<>();
    try (ArrowReader upload = WriteData.generated(client.allocator, 3, 5, -1)) {
      client.sql.executeIngest(upload, options("small", CREATE, FAIL_IF_EXISTS));
    }
    for (int i = 0; i < 15; i++) {
      expected.add(List.of(String.valueOf(i), "row " + i));
    }
    assertThat(client.rows(client.sql.execute("SELECT id, name FROM small ORDER BY id")))
        .isEqualTo(expected);
  }
}
