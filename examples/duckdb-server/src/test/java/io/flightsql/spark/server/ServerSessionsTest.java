package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpSessionOptionValueVisitor;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.SetSessionOptionsResult.ErrorValue;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.client.ClientCookieMiddleware;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Cookie-based sessions: the cookie, SetSessionOptions/GetSessionOptions/CloseSession, the default
 * catalog and schema of a session's queries, and tickets bound to their session.
 */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class ServerSessionsTest {

  @Test
  void theFirstCallSetsAnUnguessableCookieThatTheClientSendsBack() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .lineitemRows(0)
                .endpoints(1)
                .sessions(true)
                .middleware(CallRecorder.KEY, recorder)
                .start();
        Client client = Client.withCookies(server)) {
      assertThat(client.value("SELECT 1")).isEqualTo("1");
      assertThat(client.value("SELECT 2")).isEqualTo("2");

      assertThat(client.setCookies).hasSize(1);
      String setCookie = client.setCookies.get(0);
      assertThat(setCookie).matches("flightsql_session=[A-Za-z0-9_-]{43}; Path=/");
      String id = setCookie.substring("flightsql_session=".length(), setCookie.indexOf(';'));
      List<RecordedCall> calls = recorder.calls();
      assertThat(calls.get(0).header("cookie")).isNull();
      assertThat(calls.subList(1, calls.size()))
          .allSatisfy(
              call -> assertThat(call.header("cookie")).contains("flightsql_session=" + id));
      assertThat(calls.get(1).toString()).doesNotContain(id);
    }
  }

  @Test
  void eachClientGetsASessionOfItsOwn() throws Exception {
    try (DuckDbFlightSqlServer server = sessionServer();
        Client first = Client.withCookies(server);
        Client second = Client.withCookies(server)) {
      first.value("SELECT 1");
      second.value("SELECT 1");

      assertThat(first.setCookies).hasSize(1);
      assertThat(second.setCookies).hasSize(1).doesNotContain(first.setCookies.get(0));
    }
  }

  @Test
  void theSchemaOptionChangesTheDefaultSchemaOfThatSessionOnly() throws Exception {
    try (DuckDbFlightSqlServer server = sessionServer();
        Client sales = Client.withCookies(server);
        Client other = Client.withCookies(server)) {
      server.execute("CREATE SCHEMA sales; CREATE TABLE sales.orders AS SELECT 7 AS id");

      SetSessionOptionsResult result = sales.set(Map.of("schema", string("sales")));

      assertThat(result.hasErrors()).isFalse();
      assertThat(sales.value("SELECT id FROM orders")).isEqualTo("7");
      assertThat(sales.options()).isEqualTo(Map.of("schema", "sales"));
      // DML runs in the session's schema too.
      assertThat(sales.sql.executeUpdate("INSERT INTO orders VALUES (8)")).isEqualTo(1);
      assertThat(sales.value("SELECT max(id) FROM orders")).isEqualTo("8");
      assertThatThrownBy(() -> other.value("SELECT id FROM orders"))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> {
                assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
                assertThat(e.getMessage()).contains("orders");
              });
      assertThat(other.options()).isEmpty();
    }
  }

  @Test
  void theCatalogOptionChangesTheDefaultCatalog() throws Exception {
    try (DuckDbFlightSqlServer server = sessionServer();
        Client client = Client.withCookies(server)) {
      server.execute(
          "ATTACH ':memory:' AS warehouse; CREATE SCHEMA warehouse.stock;"
              + " CREATE TABLE warehouse.main.items AS SELECT 'bolt' AS name;"
              + " CREATE TABLE warehouse.stock.counts AS SELECT 12 AS n");

      assertThat(client.set(Map.of("catalog", string("warehouse"))).hasErrors()).isFalse();
      assertThat(client.value("SELECT name FROM items")).isEqualTo("bolt");
      assertThat(client.set(Map.of("schema", string("stock"))).hasErrors()).isFalse();
      assertThat(client.value("SELECT n FROM counts")).isEqualTo("12");
      assertThat(client.options()).isEqualTo(Map.of("catalog", "warehouse", "schema", "stock"));

      // Catalog and schema are checked together: stock is no schema of the default catalog.
      SessionOptionValue unset = SessionOptionValueFactory.makeEmptySessionOptionValue();
      assertThat(client.set(Map.of("catalog", unset)).getErrors())
          .containsExactly(
              Map.entry("catalog", new SetSessionOptionsResult.Error(ErrorValue.INVALID_VALUE)));
      assertThat(client.options()).isEqualTo(Map.of("catalog", "warehouse", "schema", "stock"));
      // An empty value unsets an option.
      assertThat(client.set(Map.of("catalog", unset, "schema", unset)).hasErrors()).isFalse();
      assertThat(client.options()).isEmpty();
      assertThat(client.value("SELECT current_database()")).isEqualTo("memory");
    }
  }

  @Test
  void unknownOptionsAndValuesDuckDbRefusesAreAnsweredWithErrors() throws Exception {
    try (DuckDbFlightSqlServer server = sessionServer();
        Client client = Client.withCookies(server)) {
      client.set(Map.of("schema", string("main")));

      SetSessionOptionsResult result =
          client.set(
              Map.of(
                  "schema", string("no_such_schema"),
                  "catalog", SessionOptionValueFactory.makeSessionOptionValue(42L),
                  "timezone", string("UTC")));

      assertThat(result.getErrors())
          .containsOnlyKeys("schema", "catalog", "timezone")
          .containsEntry("schema", new SetSessionOptionsResult.Error(ErrorValue.INVALID_VALUE))
          .containsEntry("catalog", new SetSessionOptionsResult.Error(ErrorValue.INVALID_VALUE))
          .containsEntry("timezone", new SetSessionOptionsResult.Error(ErrorValue.INVALID_NAME));
      assertThat(client.options()).as("unchanged").isEqualTo(Map.of("schema", "main"));
    }
  }

  @Test
  void aTicketIsReadOnlyWithItsSessionsCookie() throws Exception {
    try (DuckDbFlightSqlServer server = sessionServer();
        Client owner = Client.withCookies(server);
        Client stranger = Client.withoutCookies(server)) {
      server.execute("CREATE SCHEMA sales; CREATE TABLE sales.orders AS SELECT 7 AS id");
      owner.set(Map.of("schema", string("sales")));
      FlightInfo info = owner.sql.execute("SELECT id FROM orders");
      Ticket ticket = info.getEndpoints().get(0).getTicket();

      assertThatThrownBy(() -> stranger.read(ticket))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> {
                assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
                assertThat(e.getMessage())
                    .contains("ticket belongs to a session; send its cookie (flightsql_session)");
              });
      // The ticket keeps the schema of its GetFlightInfo, whatever the session sets since.
      owner.set(Map.of("schema", string("main")));
      assertThat(owner.read(ticket)).isEqualTo("7");
    }
  }

  @Test
  void closeSessionEndsTheSessionAndItsOptions() throws Exception {
    try (DuckDbFlightSqlServer server = sessionServer();
        Client client = Client.withCookies(server)) {
      client.set(Map.of("schema", string("main")));

      CloseSessionResult result = client.flight.closeSession(new CloseSessionRequest());

      assertThat(result.getStatus()).isEqualTo(CloseSessionResult.Status.CLOSED);
      assertThat(client.setCookies.get(client.setCookies.size() - 1))
          .isEqualTo("flightsql_session=; Max-Age=0; Path=/");
      assertThat(client.options()).isEmpty();
      assertThat(client.setCookies.get(client.setCookies.size() - 1))
          .as("a new session")
          .matches("flightsql_session=[A-Za-z0-9_-]{43}; Path=/")
          .isNotEqualTo(client.setCookies.get(0));
    }
  }

  @Test
  void aTransactionBegunInASessionUsesItsSchema() throws Exception {
    try (DuckDbFlightSqlServer server = sessionServer();
        Client client = Client.withCookies(server)) {
      server.execute("CREATE SCHEMA sales; CREATE TABLE sales.orders AS SELECT 7 AS id");
      client.set(Map.of("schema", string("sales")));

      FlightSqlClient.Transaction transaction = client.sql.beginTransaction();
      assertThat(client.sql.executeUpdate("INSERT INTO orders VALUES (9)", transaction))
          .isEqualTo(1);
      client.sql.commit(transaction);

      assertThat(TestClient.jdbcRows(server, "SELECT count(*) FROM sales.orders"))
          .containsExactly(List.of("2"));
    }
  }

  @Test
  void bulkIngestionWithoutACatalogOrSchemaWritesToTheSessionsSchema() throws Exception {
    try (DuckDbFlightSqlServer server = sessionServer();
        Client client = Client.withCookies(server)) {
      server.execute("CREATE SCHEMA sales");
      client.set(Map.of("schema", string("sales")));

      try (VectorSchemaRoot root =
          VectorSchemaRoot.create(
              new Schema(List.of(Field.nullable("id", new ArrowType.Int(32, true)))),
              client.allocator)) {
        root.allocateNew();
        ((IntVector) root.getVector(0)).setSafe(0, 11);
        root.setRowCount(1);
        long rows =
            client.sql.executeIngest(
                root,
                BulkIngestTest.options(
                    "ingested",
                    TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
                    TableExistsOption.TABLE_EXISTS_OPTION_FAIL));
        assertThat(rows).isEqualTo(1);
      }

      assertThat(TestClient.jdbcRows(server, "SELECT id FROM sales.ingested"))
          .containsExactly(List.of("11"));
    }
  }

  @Test
  void withoutSessionsNoCookieIsSetAndSessionActionsAreUnimplemented() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        Client client = Client.withCookies(server);
        Client other = Client.withoutCookies(server)) {
      FlightInfo info = client.sql.execute("SELECT 5");
      assertThat(other.read(info.getEndpoints().get(0).getTicket())).isEqualTo("5");
      assertThat(client.setCookies).isEmpty();

      assertThatThrownBy(() -> client.set(Map.of("schema", string("main"))))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> {
                assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNIMPLEMENTED);
                assertThat(e.getMessage()).contains("SetSessionOptions", "sessions are off");
              });
      assertThatThrownBy(client::options)
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNIMPLEMENTED));
      assertThatThrownBy(() -> client.flight.closeSession(new CloseSessionRequest()))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNIMPLEMENTED));
    }
  }

  @Test
  void sessionsWorkBehindAuthentication() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .lineitemRows(0)
                .sessions(true)
                .bearerToken("t0ken")
                .start();
        Client client = Client.withCookies(server)) {
      assertThatThrownBy(() -> client.value("SELECT 1")).isInstanceOf(FlightRuntimeException.class);
      assertThat(client.setCookies).as("a refused call starts no session").isEmpty();
    }
  }

  // ---- Helpers

  private static DuckDbFlightSqlServer sessionServer() throws Exception {
    return DuckDbFlightSqlServer.builder().lineitemRows(0).endpoints(1).sessions(true).start();
  }

  private static SessionOptionValue string(String value) {
    return SessionOptionValueFactory.makeSessionOptionValue(value);
  }

  /** A Flight SQL client that notes the set-cookie headers of the server's responses. */
  private static final class Client implements AutoCloseable {
    final BufferAllocator allocator = new RootAllocator();
    final List<String> setCookies = new CopyOnWriteArrayList<>();
    final FlightClient flight;
    final FlightSqlClient sql;

    private Client(DuckDbFlightSqlServer server, boolean cookies) {
      FlightClient.Builder builder =
          FlightClient.builder(allocator, new Location(URI.create(server.uri())))
              .intercept(info -> new SetCookieRecorder());
      if (cookies) {
        builder.intercept(new ClientCookieMiddleware.Factory());
      }
      this.flight = builder.build();
      this.sql = new FlightSqlClient(flight);
    }

    static Client withCookies(DuckDbFlightSqlServer server) {
      return new Client(server, true);
    }

    static Client withoutCookies(DuckDbFlightSqlServer server) {
      return new Client(server, false);
    }

    /** The first value of the first row of a query's only endpoint. */
    String value(String query) throws Exception {
      return read(sql.execute(query).getEndpoints().get(0).getTicket());
    }

    String read(Ticket ticket) throws Exception {
      try (FlightStream stream = sql.getStream(ticket)) {
        assertThat(stream.next()).isTrue();
        return String.valueOf(stream.getRoot().getVector(0).getObject(0));
      }
    }

    SetSessionOptionsResult set(Map<String, SessionOptionValue> options) {
      return flight.setSessionOptions(new SetSessionOptionsRequest(options));
    }

    /** The session's options, as strings. */
    Map<String, String> options() {
      Map<String, String> options = new TreeMap<>();
      flight
          .getSessionOptions(new GetSessionOptionsRequest())
          .getSessionOptions()
          .forEach(
              (name, value) ->
                  options.put(
                      name,
                      value.acceptVisitor(
                          new NoOpSessionOptionValueVisitor<String>() {
                            @Override
                            public String visit(String string) {
                              return string;
                            }
                          })));
      return options;
    }

    @Override
    public void close() throws Exception {
      sql.close();
      allocator.close();
    }

    private final class SetCookieRecorder implements FlightClientMiddleware {
      @Override
      public void onBeforeSendingHeaders(CallHeaders outgoing) {}

      @Override
      public void onHeadersReceived(CallHeaders incoming) {
        if (incoming.containsKey("set-cookie")) {
          incoming.getAll("set-cookie").forEach(setCookies::add);
        }
      }

      @Override
      public void onCallCompleted(CallStatus status) {}
    }
  }
}
