package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.ExecuteIngestOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The two modes that make the server a cheap partner for client benchmarks: without {@code
 * RowStorage} writes are counted and dropped; without {@code QueryPerEndpoint} a query runs once
 * and its endpoints are slices of the kept result.
 */
@SuppressWarnings("try") // Arrow's FlightSqlClient.PreparedStatement close() declares Exception
class BenchmarkModesTest {

  private static final String[] QUERIES = {
    "SELECT * FROM lineitem",
    "SELECT l_orderkey, l_linenumber, l_shipdate FROM lineitem ORDER BY l_shipdate, l_orderkey",
    "SELECT 42 AS answer",
    "SELECT * FROM lineitem WHERE l_orderkey < 0",
  };

  @ParameterizedTest(name = "{0} endpoints")
  @ValueSource(ints = {1, 3, 8})
  void computedResultsAddUpToDuckDbsAnswerAndEachEndpointIsReadOnce(int endpoints)
      throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .endpoints(endpoints)
                .lineitemRows(20_000)
                .batchRows(2_000)
                .without("QueryPerEndpoint")
                .start();
        TestClient client = new TestClient(server)) {
      for (String sql : QUERIES) {
        List<List<String>> expected = TestClient.jdbcRows(server, sql);
        FlightInfo info = client.sql.execute(sql);

        assertThat(info.getEndpoints()).as(sql).hasSize(endpoints);
        assertThat(info.getRecords()).as(sql).isEqualTo(expected.size());
        List<List<String>> actual = new ArrayList<>();
        for (FlightEndpoint endpoint : info.getEndpoints()) {
          TestClient.Stream stream = client.read(endpoint.getTicket());
          assertThat(stream.schema()).isEqualTo(TestClient.schema(info));
          actual.addAll(stream.rows());
        }
        assertThat(actual).as(sql).isEqualTo(expected);
        assertThatThrownBy(() -> client.read(info.getEndpoints().get(0).getTicket()))
            .isInstanceOfSatisfying(
                FlightRuntimeException.class,
                e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND))
            .hasMessageContaining("read already");
      }
    }
  }

  @Test
  void enumColumnsAreStillReadOncePerEndpoint() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .endpoints(2)
                .lineitemRows(0)
                .without("QueryPerEndpoint")
                .start();
        TestClient client = new TestClient(server)) {
      server.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
      server.execute("CREATE TABLE moods AS SELECT 'ok'::mood AS m FROM range(5)");
      FlightInfo info = client.sql.execute("SELECT m FROM moods");
      List<List<String>> rows = new ArrayList<>();
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        rows.addAll(client.rows(endpoint.getTicket()));
      }
      assertThat(rows).hasSize(5).allSatisfy(row -> assertThat(row).containsExactly("ok"));
    }
  }

  @Test
  void writesWithoutRowStorageAreCountedAndDropped() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().lineitemRows(0).without("RowStorage").start();
        TestClient client = new TestClient(server)) {
      TableDefinitionOptions create =
          TableDefinitionOptions.newBuilder()
              .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
              .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
              .build();
      long ingested;
      try (ArrowReader rows = WriteData.generated(client.allocator, 3, 1_000, -1)) {
        ingested =
            client.sql.executeIngest(
                rows, new ExecuteIngestOptions("sunk", create, false, null, null, Map.of()));
      }
      long inserted;
      server.execute("CREATE TABLE sunk_too (id BIGINT)");
      try (FlightSqlClient.PreparedStatement insert =
              client.sql.prepare("INSERT INTO sunk_too VALUES (?)");
          VectorSchemaRoot parameters =
              VectorSchemaRoot.create(insert.getParameterSchema(), client.allocator)) {
        parameters.allocateNew();
        for (int i = 0; i < 7; i++) {
          ((BigIntVector) parameters.getVector(0)).setSafe(i, i);
        }
        parameters.setRowCount(7);
        insert.setParameters(parameters);
        inserted = insert.executeUpdate();
      }

      assertThat(ingested).isEqualTo(3_000);
      assertThat(inserted).isEqualTo(7);
      assertThat(server.discardedRows()).isEqualTo(3_007);
      assertThat(TestClient.jdbcRows(server, "SELECT count(*) FROM sunk"))
          .containsExactly(List.of("0"));
      assertThat(TestClient.jdbcRows(server, "SELECT count(*) FROM sunk_too"))
          .containsExactly(List.of("0"));
    }
  }

  @Test
  void writesAreStoredByDefault() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      server.execute(
          "CREATE TABLE kept (id BIGINT, name VARCHAR, amount DECIMAL(12, 2), ts TIMESTAMPTZ)");
      TableDefinitionOptions append =
          TableDefinitionOptions.newBuilder()
              .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL)
              .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
              .build();
      try (ArrowReader rows = WriteData.generated(client.allocator, 2, 10, -1)) {
        client.sql.executeIngest(
            rows, new ExecuteIngestOptions("kept", append, false, null, null, Map.of()));
      }
      assertThat(server.discardedRows()).isZero();
      assertThat(TestClient.jdbcRows(server, "SELECT count(*) FROM kept"))
          .containsExactly(List.of("20"));
    }
  }
}
