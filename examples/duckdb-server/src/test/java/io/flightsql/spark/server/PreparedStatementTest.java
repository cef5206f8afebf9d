package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Prepared statements without parameters, as the Arrow Flight SQL JDBC driver sends every query. */
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
    server.close();
  }

  @Test
  void preparedQueryDescribesItsResultAndReadsLikeAStatement() throws Exception {
    String sql = "SELECT l_orderkey, l_comment FROM lineitem ORDER BY l_orderkey, l_linenumber";
    try (FlightSqlClient.PreparedStatement prepared = client.sql.prepare(sql)) {
      assertThat(prepared.getResultSetSchema()).isEqualTo(client.sql.getExecuteSchema(sql).getSchema());
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
    }
  }

  @Test
  void invalidSqlIsRefusedWhenPreparedWithDuckDbsMessage() {
    assertThatThrownBy(() -> client.sql.prepare("SELECT * FROM no_such_table"))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("no_such_table");
  }
}
