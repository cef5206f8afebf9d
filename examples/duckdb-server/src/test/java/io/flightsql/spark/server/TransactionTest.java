package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.util.List;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.Transaction;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** BeginTransaction and EndTransaction, and the commands that run inside a transaction. */
class TransactionTest {

  private static DuckDbFlightSqlServer server;
  private static TestClient client;

  @BeforeAll
  static void start() throws Exception {
    server = DuckDbFlightSqlServer.builder().lineitemRows(0).endpoints(3).start();
    client = new TestClient(server);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
  }

  private static List<List<String>> rows(String sql) throws Exception {
    return TestClient.jdbcRows(server, sql);
  }

  private static FlightStatusCode status(Throwable e) {
    return ((FlightRuntimeException) e).status().code();
  }

  @Test
  void committedWorkBecomesVisibleToEveryone() throws Exception {
    Transaction transaction = client.sql.beginTransaction();
    assertThat(transaction.getTransactionId()).hasSize(16);
    client.sql.executeUpdate("CREATE TABLE committed (id INTEGER)", transaction);
    assertThat(client.sql.executeUpdate("INSERT INTO committed VALUES (1), (2)", transaction))
        .isEqualTo(2);

    // Inside, the transaction sees its own work, through one endpoint, and so does GetSchema.
    FlightInfo info = client.sql.execute("SELECT id FROM committed ORDER BY id", transaction);
    assertThat(info.getEndpoints()).hasSize(1);
    assertThat(client.rows(info)).containsExactly(List.of("1"), List.of("2"));
    assertThat(
            client
                .sql
                .getExecuteSchema("SELECT * FROM committed", transaction)
                .getSchema()
                .getFields())
        .hasSize(1);
    // Outside, nothing yet.
    assertThat(rows("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'committed'"))
        .containsExactly(List.of("0"));

    client.sql.commit(transaction);
    assertThat(client.rows(client.sql.execute("SELECT count(*) FROM committed")))
        .containsExactly(List.of("2"));
  }

  @Test
  void rolledBackWorkDisappears() throws Exception {
    server.execute("CREATE TABLE rolled (id INTEGER); INSERT INTO rolled VALUES (0)");
    Transaction transaction = client.sql.beginTransaction();
    client.sql.executeUpdate("INSERT INTO rolled VALUES (1)", transaction);
    client.sql.executeUpdate("DELETE FROM rolled WHERE id = 0", transaction);
    assertThat(client.rows(client.sql.execute("SELECT id FROM rolled", transaction)))
        .containsExactly(List.of("1"));

    client.sql.rollback(transaction);
    assertThat(rows("SELECT id FROM rolled")).containsExactly(List.of("0"));
  }

  @Test
  void endedAndUnknownTransactionsAreNotFound() {
    Transaction ended = client.sql.beginTransaction();
    client.sql.commit(ended);
    Transaction unknown = new Transaction(new byte[16]);
    for (Transaction transaction : List.of(ended, unknown)) {
      assertThatThrownBy(() -> client.sql.execute("SELECT 1", transaction))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND))
          .hasMessageContaining("Unknown transaction")
          .hasMessageContaining("already been committed or rolled back");
      assertThatThrownBy(() -> client.sql.executeUpdate("SELECT 1", transaction))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND));
      assertThatThrownBy(() -> client.sql.getExecuteSchema("SELECT 1", transaction))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND));
      assertThatThrownBy(() -> client.sql.prepare("SELECT 1", transaction))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND));
      assertThatThrownBy(() -> client.sql.commit(transaction))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND));
      assertThatThrownBy(() -> client.sql.rollback(transaction))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND));
    }
  }

  @Test
  void aTransactionWithAFailedStatementRollsBackInsteadOfCommitting() throws Exception {
    server.execute("CREATE TABLE aborted (id INTEGER PRIMARY KEY)");
    Transaction transaction = client.sql.beginTransaction();
    client.sql.executeUpdate("INSERT INTO aborted VALUES (1)", transaction);
    assertThatThrownBy(
            () -> client.sql.executeUpdate("INSERT INTO aborted VALUES (1)", transaction))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("duplicate key");
    // DuckDB now refuses everything in the transaction, and would roll back on COMMIT.
    assertThatThrownBy(() -> client.sql.execute("SELECT 1", transaction))
        .hasMessageContaining("Current transaction is aborted");

    assertThatThrownBy(() -> client.sql.commit(transaction))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("was rolled back instead of committed")
        .hasMessageContaining("duplicate key");
    assertThat(rows("SELECT count(*) FROM aborted")).containsExactly(List.of("0"));
  }

  @Test
  void queriesInATransactionStreamOnItsConnection() throws Exception {
    Transaction transaction = client.sql.beginTransaction();
    client.sql.executeUpdate(
        "CREATE TABLE streamed AS SELECT range AS i FROM range(100000)", transaction);
    FlightInfo info = client.sql.execute("SELECT i FROM streamed WHERE i % 1000 = 0", transaction);
    assertThat(client.rows(info)).hasSize(100);
    // The ticket stays redeemable while the transaction is open, and no longer.
    assertThat(client.rows(info)).hasSize(100);
    client.sql.rollback(transaction);
    assertThatThrownBy(() -> client.rows(info))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND));
  }

  @Test
  void transactionsAreIsolatedFromEachOther() throws Exception {
    server.execute("CREATE TABLE isolated (id INTEGER)");
    Transaction first = client.sql.beginTransaction();
    Transaction second = client.sql.beginTransaction();
    client.sql.executeUpdate("INSERT INTO isolated VALUES (1)", first);
    assertThat(client.rows(client.sql.execute("SELECT count(*) FROM isolated", second)))
        .containsExactly(List.of("0"));
    client.sql.commit(first);
    // Snapshot isolation: the second keeps the snapshot of its first statement.
    assertThat(client.rows(client.sql.execute("SELECT count(*) FROM isolated", second)))
        .containsExactly(List.of("0"));
    client.sql.commit(second);
    assertThat(rows("SELECT count(*) FROM isolated")).containsExactly(List.of("1"));
  }

  @Test
  void serverCloseRollsBackAbandonedTransactions() throws Exception {
    DuckDbFlightSqlServer own = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
    try (TestClient ownClient = new TestClient(own)) {
      own.execute("CREATE TABLE abandoned (id INTEGER)");
      Transaction transaction = ownClient.sql.beginTransaction();
      ownClient.sql.executeUpdate("INSERT INTO abandoned VALUES (1)", transaction);
      assertThat(own.openTransactions()).isEqualTo(1);
    }
    // Closing checks for leaks too; it would throw if the transaction's connection held memory.
    own.close();
  }

  @Test
  void closingTheRegistryRollsBackWhatIsOpen() throws Exception {
    try (DuckDbDatabase database = DuckDbDatabase.openInMemory(List.of())) {
      database.execute("CREATE TABLE t (id INTEGER)");
      DuckDbTransactions transactions = new DuckDbTransactions(database);
      ByteString id = transactions.begin(SessionDefaults.NONE);
      try (DuckDbTransactions.Lease lease = transactions.lease(id)) {
        DuckDbDatabase.execute(lease.connection(), "INSERT INTO t VALUES (1)");
      }
      transactions.close();
      assertThat(transactions.openCount()).isZero();
      try (DuckDBConnection connection = database.connect()) {
        assertThat(DuckDbDatabase.queryLong(connection, "SELECT count(*) FROM t")).isZero();
      }
      assertThatThrownBy(() -> transactions.lease(id))
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND));
    }
  }

  @Test
  void preparedStatementsRunInTheirTransaction() throws Exception {
    server.execute("CREATE TABLE prepared_tx (id INTEGER)");
    Transaction transaction = client.sql.beginTransaction();
    try (FlightSqlClient.PreparedStatement insert =
        client.sql.prepare("INSERT INTO prepared_tx VALUES (42)", transaction)) {
      assertThat(insert.executeUpdate()).isEqualTo(1);
    }
    try (FlightSqlClient.PreparedStatement query =
        client.sql.prepare("SELECT * FROM prepared_tx", transaction)) {
      assertThat(client.rows(query.execute())).containsExactly(List.of("42"));
    }
    client.sql.rollback(transaction);
    assertThat(rows("SELECT count(*) FROM prepared_tx")).containsExactly(List.of("0"));
  }
}
