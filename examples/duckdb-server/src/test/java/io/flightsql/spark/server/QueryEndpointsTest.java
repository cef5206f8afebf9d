package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.flight.sql.util.TableRef;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Queries split into endpoints add up to DuckDB's own answer, in order. */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class QueryEndpointsTest {

  private static final String[] QUERIES = {
    "SELECT * FROM lineitem",
    "SELECT l_orderkey, l_linenumber, l_shipdate FROM lineitem WHERE l_quantity > 25",
    // Ties on l_shipdate: the slices only fit together because every endpoint sees the same order.
    "SELECT l_orderkey, l_linenumber, l_shipdate FROM lineitem ORDER BY l_shipdate",
    // A hash aggregate: its row order is arbitrary, yet the same in every endpoint's execution.
    "SELECT l_partkey, count(*) AS n, sum(l_quantity) AS q FROM lineitem GROUP BY l_partkey",
    "SELECT 42 AS answer",
  };

  @ParameterizedTest(name = "{0} endpoints")
  @ValueSource(ints = {1, 2, 4})
  void endpointsAddUpToDuckDbsAnswer(int endpoints) throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .endpoints(endpoints)
                .lineitemRows(20_000)
                .batchRows(3_000)
                .start();
        TestClient client = new TestClient(server)) {
      for (String sql : QUERIES) {
        FlightInfo info = client.sql.execute(sql);
        List<List<String>> expected = TestClient.jdbcRows(server, sql);

        assertThat(info.getEndpoints()).as(sql).hasSize(endpoints);
        assertThat(info.getEndpoints()).allSatisfy(e -> assertThat(e.getLocations()).isEmpty());
        assertThat(info.getRecords()).as(sql).isEqualTo(expected.size());
        assertThat(info.getOrdered()).isTrue();
        List<List<String>> actual = new ArrayList<>();
        for (FlightEndpoint endpoint : info.getEndpoints()) {
          TestClient.Stream stream = client.read(endpoint.getTicket());
          assertThat(stream.schema()).isEqualTo(TestClient.schema(info));
          assertThat(stream.batches()).allSatisfy(rows -> assertThat(rows).isBetween(1, 3_000));
          actual.addAll(stream.rows());
        }
        assertThat(actual).as(sql).isEqualTo(expected);
      }
    }
  }

  @Test
  void orderedQueryOverManyRowsKeepsItsOrderAcrossFourEndpointsReadInParallel() throws Exception {
    String sql =
        "SELECT l_orderkey, l_linenumber, l_shipdate, l_extendedprice FROM lineitem"
            + " ORDER BY l_shipdate, l_extendedprice DESC";
    ExecutorService readers = Executors.newFixedThreadPool(4);
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .endpoints(4)
                .lineitemRows(250_000)
                .batchRows(10_000)
                .start();
        TestClient client = new TestClient(server)) {
      FlightInfo info = client.sql.execute(sql);
      List<Future<List<List<String>>>> slices = new ArrayList<>();
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        slices.add(readers.submit(() -> client.rows(endpoint.getTicket())));
      }
      List<List<String>> actual = new ArrayList<>();
      for (Future<List<List<String>>> slice : slices) {
        List<List<String>> rows = slice.get();
        // 250,000 rows in 4 endpoints: 62,500 each, cut in the middle of DuckDB's batches.
        assertThat(rows).hasSize(62_500);
        actual.addAll(rows);
      }

      assertThat(actual).isEqualTo(TestClient.jdbcRows(server, sql));
      Set<List<String>> keys = new HashSet<>();
      for (List<String> row : actual) {
        keys.add(row.subList(0, 2));
      }
      assertThat(keys).as("(l_orderkey, l_linenumber) is unique: no row twice").hasSize(250_000);
    } finally {
      readers.shutdownNow();
    }
  }

  @Test
  @Timeout(120)
  void slowReadersOfLargeEndpointsDoNotStallTheServer() throws Exception {
    // The clients start reading only after gRPC's flow-control window has filled, so every DoGet
    // has to wait for its client to become ready again, twice at the same time.
    String sql = "SELECT i, i * 2 AS j, 'row ' || i AS s FROM range(1000000) AS t(i)";
    ExecutorService readers = Executors.newFixedThreadPool(2);
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().endpoints(2).lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      FlightInfo info = client.sql.execute(sql);
      List<Future<Long>> counts = new ArrayList<>();
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        counts.add(
            readers.submit(
                () -> {
                  long rows = 0;
                  try (FlightStream stream = client.sql.getStream(endpoint.getTicket())) {
                    Thread.sleep(1_000);
                    while (stream.next()) {
                      rows += stream.getRoot().getRowCount();
                    }
                  }
                  return rows;
                }));
      }

      assertThat(counts.get(0).get()).isEqualTo(500_000);
      assertThat(counts.get(1).get()).isEqualTo(500_000);
    } finally {
      readers.shutdownNow();
    }
  }

  @Test
  void emptyResultStillSendsTheSchemaFromEveryEndpoint() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().endpoints(3).lineitemRows(1_000).start();
        TestClient client = new TestClient(server)) {
      FlightInfo info =
          client.sql.execute("SELECT l_orderkey, l_comment FROM lineitem WHERE false");

      assertThat(info.getRecords()).isZero();
      assertThat(info.getEndpoints()).hasSize(3);
      assertThat(TestClient.schema(info).getFields())
          .extracting(Field::getName)
          .containsExactly("l_orderkey", "l_comment");
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        TestClient.Stream stream = client.read(endpoint.getTicket());
        assertThat(stream.schema()).isEqualTo(TestClient.schema(info));
        assertThat(stream.rows()).isEmpty();
      }
    }
  }

  @Test
  void fewerRowsThanEndpointsLeavesTheLastEndpointsEmpty() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().endpoints(4).lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      FlightInfo info = client.sql.execute("SELECT * FROM range(2) AS t(i)");

      List<Integer> sizes = new ArrayList<>();
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        sizes.add(client.rows(endpoint.getTicket()).size());
      }
      assertThat(sizes).containsExactly(1, 1, 0, 0);
    }
  }

  @Test
  void dataErrorWhileStreamingIsInvalidArgumentWithDuckDbsMessage() throws Exception {
    // The failing cast is only evaluated when the rows are produced, so GetFlightInfo's row count
    // succeeds and DoGet fails after it has sent the rows before row 150,000.
    String sql =
        "SELECT CAST(CASE WHEN i < 150000 THEN '1' ELSE 'x' || i END AS INTEGER) AS v"
            + " FROM range(200000) AS t(i)";
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().endpoints(1).lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      FlightInfo info = client.sql.execute(sql);

      assertThatThrownBy(() -> client.rows(info))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("Could not convert string 'x150000' to INT32");
    }
  }

  @Test
  void cancellingAStreamReleasesEverything() throws Exception {
    DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder().endpoints(1).lineitemRows(0).batchRows(1_000).start();
    try (TestClient client = new TestClient(server)) {
      FlightInfo info = client.sql.execute("SELECT i, i * 2 AS j FROM range(10000000) AS t(i)");
      try (FlightStream stream = client.sql.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(stream.next()).isTrue();
        stream.cancel("enough", null);
      }
      // The server still answers after the cancelled stream.
      assertThat(client.rows(client.sql.execute("SELECT 1"))).containsExactly(List.of("1"));
    }
    // close() checks the server's allocators; a buffer left behind by the cancelled call throws.
    server.close();
  }

  @Test
  void queryErrorsAreInvalidArgumentWithDuckDbsMessage() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      assertThatThrownBy(() -> client.sql.execute("SELECT * FROM no_such_table"))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("Table with name no_such_table does not exist");
      assertThatThrownBy(() -> client.sql.execute("SELEC 1"))
          .isInstanceOf(FlightRuntimeException.class)
          .hasMessageContaining("syntax error at or near \"SELEC\"");
      assertThatThrownBy(() -> client.sql.execute("PRAGMA version"))
          .isInstanceOf(FlightRuntimeException.class)
          .hasMessageContaining("The statement cannot run as a query");
      assertThatThrownBy(() -> client.sql.execute(" ; "))
          .isInstanceOf(FlightRuntimeException.class)
          .hasMessageContaining("The SQL query is empty");
    }
  }

  @Test
  void trailingSemicolonsAndLineCommentsAreAccepted() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      FlightInfo info = client.sql.execute("SELECT 1 AS x -- the answer\n;\n");

      assertThat(client.rows(info)).containsExactly(List.of("1"));
    }
  }

  @Test
  void duplicateColumnNamesGetTheSameNamesInFlightInfoAndStream() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      FlightInfo info = client.sql.execute("SELECT 1 AS a, 2 AS a");
      TestClient.Stream stream = client.read(info.getEndpoints().get(0).getTicket());

      assertThat(TestClient.schema(info).getFields())
          .extracting(Field::getName)
          .containsExactly("a", "a_1");
      assertThat(stream.schema()).isEqualTo(TestClient.schema(info));
    }
  }

  @Test
  void unknownTicketsAreInvalidArgument() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      Ticket garbage = new Ticket("not a ticket".getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() -> client.rows(garbage))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT));

      TicketStatementQuery foreign =
          TicketStatementQuery.newBuilder()
              .setStatementHandle(ByteString.copyFromUtf8("a handle of another server"))
              .build();
      Ticket foreignTicket = new Ticket(Any.pack(foreign).toByteArray());
      assertThatThrownBy(() -> client.rows(foreignTicket))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("Invalid statement handle");
    }
  }

  @Test
  void unsupportedCommandsAreUnimplementedWithAMessage() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      FlightSqlClient.Transaction transaction = client.sql.beginTransaction();
      assertThatThrownBy(() -> client.sql.beginSavepoint(transaction, "before"))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNIMPLEMENTED))
          .hasMessageContaining("savepoints");
      client.sql.rollback(transaction);
      assertThatThrownBy(
              () -> client.sql.getPrimaryKeys(TableRef.of("memory", "main", "types_demo")))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNIMPLEMENTED));
    }
  }
}
