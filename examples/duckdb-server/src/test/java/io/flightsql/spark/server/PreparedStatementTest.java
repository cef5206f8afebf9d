package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Prepared statements: without parameters, as the Arrow Flight SQL JDBC driver sends every query,
 * and with parameters bound in Arrow batches, for updates and queries.
 */
class PreparedStatementTest {
  private static DuckDbFlightSqlServer server;
  private static TestClient client;

  @BeforeAll
  static void start() throws Exception {
    server = DuckDbFlightSqlServer.builder().lineitemRows(5_000).endpoints(2).start();
    client = new TestClient(server);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    assertThat(server.openPreparedStatements()).isZero();
    server.close();
  }

  private static FlightStatusCode status(Throwable e) {
    return ((FlightRuntimeException) e).status().code();
  }

  /** Parameter rows of (INTEGER, VARCHAR); a null name is a NULL. */
  private static VectorSchemaRoot parameters(int[] ids, String... names) {
    VectorSchemaRoot root =
        VectorSchemaRoot.create(
            new Schema(
                List.of(
                    Field.nullable("id", new ArrowType.Int(32, true)),
                    Field.nullable("name", ArrowType.Utf8.INSTANCE))),
            client.allocator);
    root.allocateNew();
    for (int i = 0; i < ids.length; i++) {
      ((IntVector) root.getVector(0)).setSafe(i, ids[i]);
      if (names[i] != null) {
        ((VarCharVector) root.getVector(1)).setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
      }
    }
    root.setRowCount(ids.length);
    return root;
  }

  @Test
  void preparedQueryDescribesItsResultAndReadsLikeAStatement() throws Exception {
    String sql = "SELECT l_orderkey, l_comment FROM lineitem ORDER BY l_orderkey, l_linenumber";
    try (FlightSqlClient.PreparedStatement prepared = client.sql.prepare(sql)) {
      assertThat(prepared.getResultSetSchema())
          .isEqualTo(client.sql.getExecuteSchema(sql).getSchema());
      assertThat(prepared.getParameterSchema().getFields()).isEmpty();
      assertThat(prepared.fetchSchema().getSchema()).isEqualTo(prepared.getResultSetSchema());
      var info = prepared.execute();
      assertThat(info.getEndpoints()).hasSize(2);
      assertThat(client.rows(info)).isEqualTo(TestClient.jdbcRows(server, sql));
    }
  }

  @Test
  void preparedUpdateHasNoDatasetSchema() throws Exception {
    try (FlightSqlClient.PreparedStatement prepared =
        client.sql.prepare("CREATE TABLE prepared_probe (x INTEGER)")) {
      assertThat(prepared.getResultSetSchema().getFields()).isEmpty();
      assertThat(prepared.executeUpdate()).isZero();
    }
    assertThat(TestClient.jdbcRows(server, "SELECT count(*) FROM prepared_probe"))
        .containsExactly(List.of("0"));
  }

  @Test
  void invalidSqlIsRefusedWhenPreparedWithDuckDbsMessage() {
    assertThatThrownBy(() -> client.sql.prepare("SELECT * FROM no_such_table"))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("no_such_table");
  }

  @Test
  void preparedInsertDescribesItsParametersAndBindsBatchesWithNulls() throws Exception {
    server.execute("CREATE TABLE people (id INTEGER, name VARCHAR, born DATE)");
    try (FlightSqlClient.PreparedStatement insert =
        client.sql.prepare("INSERT INTO people (id, name) VALUES (?, ?)")) {
      assertThat(insert.getParameterSchema().getFields())
          .extracting(f -> f.getName() + ": " + f.getType())
          .containsExactly("$1: Int(32, true)", "$2: Utf8");
      assertThat(insert.getResultSetSchema().getFields()).isEmpty();

      insert.setParameters(parameters(new int[] {1, 2, 3}, "ann", null, "cy"));
      assertThat(insert.executeUpdate()).isEqualTo(3);
      insert.setParameters(parameters(new int[] {4}, "dee"));
      assertThat(insert.executeUpdate()).isEqualTo(1);
    }
    assertThat(TestClient.jdbcRows(server, "SELECT * FROM people ORDER BY id"))
        .containsExactly(
            Arrays.asList("1", "ann", null),
            Arrays.asList("2", null, null),
            Arrays.asList("3", "cy", null),
            Arrays.asList("4", "dee", null));
  }

  @Test
  void otherUpdatesRunOncePerParameterRow() throws Exception {
    server.execute(
        "CREATE TABLE scores AS SELECT range::INTEGER AS id, 'n' || range AS name FROM range(10)");
    try (FlightSqlClient.PreparedStatement update =
        client.sql.prepare("UPDATE scores SET name = upper($2) WHERE id = $1 OR id = $1 + 5")) {
      update.setParameters(parameters(new int[] {1, 2, 99}, "a", "b", "c"));
      assertThat(update.executeUpdate()).isEqualTo(4);
    }
    assertThat(
            TestClient.jdbcRows(
                server, "SELECT id, name FROM scores WHERE name = upper(name) ORDER BY id"))
        .containsExactly(
            List.of("1", "A"), List.of("2", "B"), List.of("6", "A"), List.of("7", "B"));
  }

  @Test
  void manyRowsBindInChunksRowByRow() throws Exception {
    server.execute("CREATE TABLE chunked (id INTEGER, name VARCHAR)");
    int[] ids = new int[700];
    String[] names = new String[700];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
      names[i] = i % 3 == 0 ? null : "name " + i;
    }
    try (FlightSqlClient.PreparedStatement insert =
        client.sql.prepare("INSERT INTO chunked SELECT ?, ?")) {
      insert.setParameters(parameters(ids, names));
      assertThat(insert.executeUpdate()).isEqualTo(700);
    }
    assertThat(
            TestClient.jdbcRows(
                server, "SELECT count(*), count(name), sum(id), min(name), max(id) FROM chunked"))
        .containsExactly(List.of("700", "466", "244650", "name 1", "699"));
  }

  @Test
  void aFailingRowUndoesTheWholeBatch() throws Exception {
    server.execute("CREATE TABLE unique_ids (id INTEGER PRIMARY KEY, name VARCHAR)");
    try (FlightSqlClient.PreparedStatement insert =
        client.sql.prepare("INSERT INTO unique_ids SELECT ?, ?")) {
      insert.setParameters(parameters(new int[] {1, 2, 1}, "a", "b", "c"));
      assertThatThrownBy(insert::executeUpdate)
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("duplicate key");
    }
    try (FlightSqlClient.PreparedStatement insert =
        client.sql.prepare("INSERT INTO unique_ids VALUES (?, ?)")) {
      insert.setParameters(parameters(new int[] {5, 6, 5}, "a", "b", "c"));
      assertThatThrownBy(insert::executeUpdate).hasMessageContaining("duplicate key");
    }
    assertThat(TestClient.jdbcRows(server, "SELECT count(*) FROM unique_ids"))
        .containsExactly(List.of("0"));
  }

  @Test
  void preparedQueryWithParametersRunsOncePerRowInOneStream() throws Exception {
    server.execute(
        "CREATE TABLE catalogue AS SELECT range::INTEGER AS id, 'item ' || range AS name"
            + " FROM range(100)");
    String sql = "SELECT id, name FROM catalogue WHERE id = ? OR name = ? ORDER BY id";
    try (FlightSqlClient.PreparedStatement query = client.sql.prepare(sql)) {
      assertThat(query.getParameterSchema().getFields()).hasSize(2);
      assertThat(query.getResultSetSchema().getFields())
          .extracting(Field::getName)
          .containsExactly("id", "name");

      query.setParameters(parameters(new int[] {3, 50}, "item 7", null));
      FlightInfo info = query.execute();
      assertThat(info.getEndpoints()).hasSize(1);
      assertThat(TestClient.schema(info)).isEqualTo(query.fetchSchema().getSchema());
      assertThat(client.rows(info))
          .containsExactly(
              List.of("3", "item 3"), List.of("7", "item 7"), List.of("50", "item 50"));
      // The endpoint can be read again, and new parameters replace the old ones.
      assertThat(client.rows(info)).hasSize(3);
      query.setParameters(parameters(new int[] {99}, "nothing"));
      assertThat(client.rows(query.execute())).containsExactly(List.of("99", "item 99"));
    }
  }

  @Test
  void aQueryWithParametersNeedsThemBound() {
    try (FlightSqlClient.PreparedStatement query =
        client.sql.prepare("SELECT * FROM lineitem WHERE l_orderkey = ?")) {
      assertThatThrownBy(query::execute)
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("takes 1 parameters: bind a batch of parameter rows");
    }
  }

  @Test
  void parameterBatchesMustMatchTheStatement() throws Exception {
    server.execute("CREATE TABLE pairs (a INTEGER, b VARCHAR)");
    try (FlightSqlClient.PreparedStatement insert =
        client.sql.prepare("INSERT INTO pairs (a) VALUES (?)")) {
      insert.setParameters(parameters(new int[] {1}, "one"));
      assertThatThrownBy(insert::executeUpdate)
          .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("The parameter batch has 2 columns, but the statement takes 1");
    }
  }

  @Test
  void parametersDuckDbCannotTypeAreAnnouncedAsNull() {
    try (FlightSqlClient.PreparedStatement query =
        client.sql.prepare(
            "SELECT l_orderkey FROM lineitem WHERE l_orderkey = $1 OR l_orderkey = $1 + $2")) {
      assertThat(query.getParameterSchema().getFields())
          .extracting(f -> f.getName() + ": " + f.getType())
          .containsExactly("$1: Int(64, true)", "$2: Null");
    }
  }

  /**
   * Handles are random and server-side: a handle made of SQL text (as this server's handles once
   * were) runs nothing, and a closed handle is gone.
   */
  @Test
  void handlesAreOpaqueAndCannotBeForged() {
    FlightDescriptor forged =
        FlightDescriptor.command(
            Any.pack(
                    CommandPreparedStatementQuery.newBuilder()
                        .setPreparedStatementHandle(ByteString.copyFromUtf8("SELECT 42"))
                        .build())
                .toByteArray());
    assertThatThrownBy(() -> client.flight().getInfo(forged))
        .satisfies(e -> assertThat(status(e)).isEqualTo(FlightStatusCode.NOT_FOUND))
        .hasMessageContaining("Unknown prepared statement handle");

    FlightSqlClient.PreparedStatement closed = client.sql.prepare("SELECT 1");
    closed.close();
    int before = server.openPreparedStatements();
    try (FlightSqlClient.PreparedStatement open = client.sql.prepare("SELECT 2")) {
      assertThat(server.openPreparedStatements()).isEqualTo(before + 1);
    }
    assertThat(server.openPreparedStatements()).isEqualTo(before);
  }
}
