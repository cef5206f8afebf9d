package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.server.DuckDbFlightSqlServerBuilder;
import io.flightsql.spark.server.RecordedCall;
import io.flightsql.spark.server.TestCertificates;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads and writes against the embedded server with authentication, TLS, mutual TLS, extra headers
 * and timeouts, checking what the server received (the calls a {@link CallRecorder} recorded) and
 * what users see when something is wrong.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class FlightSqlSecurityTest {
  private static final String PASSWORD = "pw-Secr3t-basic";
  private static final String TOKEN = "tok-Secr3t-bearer";
  private static final String RANGE = "SELECT * FROM range(0, 1000) t(id)";

  @TempDir static Path certificateDirectory;
  private static TestCertificates certificates;

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void createCertificates() {
    certificates = TestCertificates.create(certificateDirectory);
  }

  private static DuckDbFlightSqlServerBuilder server() {
    return DuckDbFlightSqlServer.builder().port(0).endpoints(2).lineitemRows(0);
  }

  /** A server whose calls, with the type of each action, {@code recorder} records. */
  private static DuckDbFlightSqlServerBuilder server(CallRecorder recorder) {
    return server().middleware(CallRecorder.KEY, recorder).actionObserver(recorder::actionStarted);
  }

  private static DataFrameReader reader(DuckDbFlightSqlServer server, Map<String, String> options) {
    return spark.session().read().format("flightsql").option("uri", server.uri()).options(options);
  }

  private static long count(DuckDbFlightSqlServer server, Map<String, String> options) {
    return reader(server, options).option("query", RANGE).load().count();
  }

  private static void write(
      DuckDbFlightSqlServer server, Map<String, String> options, String table) {
    spark
        .session()
        .range(0, 100)
        .toDF("id")
        .write()
        .format("flightsql")
        .option("uri", server.uri())
        .options(options)
        .option("dbtable", table)
        .mode("overwrite")
        .save();
  }

  private static Map<String, String> options(String... keyValues) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }

  private static Set<String> methods(List<RecordedCall> calls) {
    return calls.stream().map(RecordedCall::method).collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void basicAuthReadsAndWritesWithOneLoginAndTheTokenOnEveryCall() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).basicAuth("alice", PASSWORD).start()) {
      Map<String, String> auth = options("username", "alice", "password", PASSWORD);
      assertThat(count(server, auth)).isEqualTo(1000);
      write(server, auth, "basic_written");
      assertThat(reader(server, auth).option("dbtable", "basic_written").load().count())
          .isEqualTo(100);

      List<RecordedCall> calls = recorder.calls();
      assertThat(methods(calls))
          .contains("Handshake", "GetSchema", "GetFlightInfo", "DoGet", "DoPut");
      // Driver and executors share the token of this JVM's one login.
      assertThat(calls.stream().filter(c -> c.method().equals("Handshake")).count()).isEqualTo(1);
      for (RecordedCall call : calls) {
        if (!call.method().equals("Handshake")) {
          assertThat(call.header("authorization")).as(call.method()).startsWith("Bearer ");
        }
      }
    }
  }

  @Test
  void aTokenReadsAndWrites() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).bearerToken(TOKEN).start()) {
      Map<String, String> auth = options("token", TOKEN);
      assertThat(count(server, auth)).isEqualTo(1000);
      write(server, auth, "token_written");
      assertThat(reader(server, auth).option("dbtable", "token_written").load().count())
          .isEqualTo(100);
      for (RecordedCall call : recorder.calls()) {
        assertThat(call.header("authorization")).as(call.method()).isEqualTo("Bearer " + TOKEN);
      }
    }
  }

  /**
   * An authorization header of the user's own scheme (here a bearer token written out, as a server
   * with its own scheme, such as Deephaven's {@code Anonymous}, would want it) goes with every call
   * of reads and writes, executors included.
   */
  @Test
  void anAuthorizationHeaderOfAnySchemeReadsAndWrites() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).bearerToken(TOKEN).start()) {
      Map<String, String> auth = options("header.authorization", "Bearer " + TOKEN);
      assertThat(count(server, auth)).isEqualTo(1000);
      write(server, auth, "header_written");
      assertThat(reader(server, auth).option("dbtable", "header_written").load().count())
          .isEqualTo(100);
      assertThat(methods(recorder.calls())).contains("DoGet", "DoPut", "GetFlightInfo");
      for (RecordedCall call : recorder.calls()) {
        assertThat(call.header("authorization")).as(call.method()).isEqualTo("Bearer " + TOKEN);
      }
      assertThatThrownBy(() -> count(server, options("header.authorization", "Bearer wrong")))
          .hasMessageContaining("UNAUTHENTICATED");
    }
  }

  @Test
  void wrongCredentialsSayUnauthenticatedAndNameTheOptions() throws Exception {
    try (DuckDbFlightSqlServer server = server().basicAuth("alice", PASSWORD).start()) {
      assertThatThrownBy(() -> count(server, options("username", "alice", "password", "wrong-pw")))
          .hasMessageContaining("failed for " + server.uri() + ": UNAUTHENTICATED: ")
          .hasMessageContaining("basic authentication (Handshake) as user 'alice' failed")
          .hasMessageContaining(
              "Check the credentials: options 'username' and 'password' (or 'passwordEnv',"
                  + " 'passwordFile'), or 'token'")
          .hasMessageNotContaining("wrong-pw");
      assertThatThrownBy(() -> count(server, options()))
          .hasMessageContaining("UNAUTHENTICATED")
          .hasMessageContaining("Check the credentials");
      assertThatThrownBy(
              () -> write(server, options("username", "alice", "password", "wrong-pw"), "never"))
          .hasMessageContaining("UNAUTHENTICATED")
          .hasMessageContaining("Check the credentials");
    }
  }

  @Test
  void tlsWithAPrivateCa() throws Exception {
    try (DuckDbFlightSqlServer server =
        server().tls(certificates.serverCertificate(), certificates.serverKey()).start()) {
      assertThat(server.uri()).startsWith("grpc+tls://");
      Map<String, String> tls = options("tlsRootCerts", certificates.caCertificate().toString());
      assertThat(count(server, tls)).isEqualTo(1000);
      write(server, tls, "tls_written");
      assertThat(reader(server, tls).option("dbtable", "tls_written").load().count())
          .isEqualTo(100);

      String hint =
          "The server's TLS certificate is not trusted: give the CA that signed it with option"
              + " 'tlsRootCerts' (a PEM file), or, for tests only, set"
              + " 'disableCertificateVerification' to true";
      assertThatThrownBy(() -> count(server, options()))
          .hasMessageContaining("failed for " + server.uri() + ": UNAVAILABLE")
          .hasMessageContaining(hint);
      assertThatThrownBy(
              () ->
                  count(
                      server,
                      options("tlsRootCerts", certificates.untrustedCaCertificate().toString())))
          .hasMessageContaining(hint);
    }
  }

  @Test
  void disableCertificateVerificationAcceptsASelfSignedServer() throws Exception {
    try (DuckDbFlightSqlServer server =
        server()
            .tls(certificates.selfSignedServerCertificate(), certificates.selfSignedServerKey())
            .start()) {
      assertThat(count(server, options("disableCertificateVerification", "true"))).isEqualTo(1000);
      assertThatThrownBy(
              () -> count(server, options("tlsRootCerts", certificates.caCertificate().toString())))
          .hasMessageContaining("'tlsRootCerts'");
    }
  }

  @Test
  void mutualTlsNeedsTheClientCertificate() throws Exception {
    try (DuckDbFlightSqlServer server =
        server()
            .tls(certificates.serverCertificate(), certificates.serverKey())
            .clientCertificates(certificates.caCertificate())
            .start()) {
      Map<String, String> mtls =
          options(
              "tlsRootCerts", certificates.caCertificate().toString(),
              "clientCertificate", certificates.clientCertificate().toString(),
              "clientKey", certificates.clientKey().toString());
      assertThat(count(server, mtls)).isEqualTo(1000);
      write(server, mtls, "mtls_written");

      assertThatThrownBy(
              () -> count(server, options("tlsRootCerts", certificates.caCertificate().toString())))
          .hasMessageContaining("failed for " + server.uri())
          .hasMessageContaining("'clientCertificate' and 'clientKey'");
    }
  }

  @Test
  void headersReachTheServerOnEveryCallOfReadsAndWrites() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).start()) {
      Map<String, String> headers =
          options("header.x-tenant", "acme-Secr3t", "header.X-Route", "r1");
      assertThat(count(server, headers)).isEqualTo(1000);
      write(server, headers, "headers_written");
      List<RecordedCall> calls = recorder.calls();
      assertThat(methods(calls)).contains("GetSchema", "GetFlightInfo", "DoGet", "DoPut");
      assertThat(methods(calls).stream().anyMatch(m -> m.startsWith("DoAction:"))).isTrue();
      for (RecordedCall call : calls) {
        assertThat(call.header("x-tenant")).as(call.method()).isEqualTo("acme-Secr3t");
        assertThat(call.header("x-route")).as(call.method()).isEqualTo("r1");
      }
    }
  }

  @Test
  void anExpiredTokenIsReplacedByLoggingInAgainBetweenPlanningAndReading() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).basicAuth("bob", PASSWORD).start()) {
      Dataset<Row> df =
          reader(server, options("username", "bob", "password", PASSWORD))
              .option("query", RANGE)
              .load();
      // Planning: GetFlightInfo on the driver, tickets and the token go into the partitions.
      org.apache.spark.rdd.RDD<?> rdd = df.queryExecution().toRdd();
      long handshakes = handshakes(recorder);
      server.expireTokens();
      assertThat(rdd.count()).isEqualTo(1000);
      assertThat(handshakes(recorder)).isGreaterThan(handshakes);
    }
  }

  private static long handshakes(CallRecorder recorder) {
    return recorder.calls().stream().filter(c -> c.method().equals("Handshake")).count();
  }

  @Test
  void callTimeoutEndsASlowQueryWithDeadlineExceeded() throws Exception {
    try (DuckDbFlightSqlServer server = server().start()) {
      // Counting its rows, as the server does to plan endpoints, takes seconds.
      String slow =
          "SELECT a.range AS x FROM range(0, 15000) a, range(0, 15000) b"
              + " WHERE hash(a.range * 15000 + b.range) % 1000003 = 7";
      assertThatThrownBy(
              () ->
                  reader(server, options("callTimeout", "300ms"))
                      .option("query", slow)
                      .load()
                      .count())
          .hasMessageContaining("TIMED_OUT")
          .hasMessageContaining(
              "The call passed its deadline (gRPC DEADLINE_EXCEEDED); option 'callTimeout' sets"
                  + " it");
    }
  }

  @Test
  void theSessionCookieOfPlanningGoesToExecutors() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).sessions(true).start()) {
      // Two endpoints, so two tasks read tickets that belong to the driver's session.
      Dataset<Row> df = reader(server, options()).option("query", RANGE).load();
      assertThat(df.rdd().getNumPartitions()).isEqualTo(2);
      assertThat(df.count()).isEqualTo(1000);
      List<RecordedCall> doGets =
          recorder.calls().stream()
              .filter(c -> c.method().equals("DoGet"))
              .collect(Collectors.toList());
      assertThat(doGets).isNotEmpty();
      for (RecordedCall call : doGets) {
        assertThat(call.header("cookie")).startsWith("flightsql_session=");
      }
    }
  }

  @Test
  void catalogAndSchemaBySetSessionOptionsWithSessions() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).sessions(true).start()) {
      server.execute("CREATE SCHEMA sales");
      server.execute("CREATE TABLE sales.orders AS SELECT range AS id FROM range(0, 7)");
      String catalog = catalogOf(server);
      Map<String, String> defaults = options("catalog", catalog, "schema", "sales");
      assertThat(reader(server, defaults).option("dbtable", "orders").load().count()).isEqualTo(7);
      assertThat(
              reader(server, defaults)
                  .option("query", "SELECT count(*) AS n FROM orders")
                  .load()
                  .first()
                  .getLong(0))
          .isEqualTo(7);
      assertThat(methods(recorder.calls())).contains("DoAction:SetSessionOptions");
      // Queries were sent as written: the server's session resolved the name.
      write(server, defaults, "more_orders");
      assertThat(reader(server, options()).option("dbtable", "sales.more_orders").load().count())
          .isEqualTo(100);
    }
  }

  @Test
  void catalogAndSchemaQualifyTheTableWithoutSessions() throws Exception {
    try (DuckDbFlightSqlServer server = server().start()) {
      server.execute("CREATE SCHEMA sales");
      server.execute("CREATE TABLE sales.orders AS SELECT range AS id FROM range(0, 7)");
      Map<String, String> defaults = options("catalog", catalogOf(server), "schema", "sales");
      Dataset<Row> orders = reader(server, defaults).option("dbtable", "orders").load();
      assertThat(orders.count()).isEqualTo(7);
    }
  }

  private static String catalogOf(DuckDbFlightSqlServer server) throws Exception {
    try (java.sql.Connection c = server.newConnection();
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet r = s.executeQuery("SELECT current_database()")) {
      r.next();
      return r.getString(1);
    }
  }

  @Test
  void endpointsAreReadFromTheFirstLocationThatWorksAndTheFailureBeforeIsLogged() throws Exception {
    int deadPort;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      deadPort = socket.getLocalPort();
    }
    String dead = "grpc+tcp://127.0.0.1:" + deadPort;
    CallRecorder firstCalls = new CallRecorder();
    CallRecorder secondCalls = new CallRecorder();
    try (DuckDbFlightSqlServer second = server(secondCalls).start();
        DuckDbFlightSqlServer first =
            server(firstCalls).endpointLocations(List.of(dead, second.uri())).start();
        io.flightsql.spark.testing.LogCapture logs =
            io.flightsql.spark.testing.LogCapture.start()) {
      // Every row is read, not a pushed-down COUNT(*): the rows must come through the failover.
      assertThat(count(first, options("header.x-tenant", "t1", "pushDownAggregate", "false")))
          .isEqualTo(1000);
      // The one DoGet the first server sees is GetSqlInfo's (the pushdown dialect), whose
      // endpoint has no locations; the query's endpoints are all read from the second server.
      assertThat(firstCalls.calls().stream().filter(c -> c.method().equals("DoGet")).count())
          .isEqualTo(1);
      List<RecordedCall> doGets =
          secondCalls.calls().stream()
              .filter(c -> c.method().equals("DoGet"))
              .collect(Collectors.toList());
      assertThat(doGets).hasSize(2);
      assertThat(doGets.get(0).header("x-tenant")).isEqualTo("t1");
      ArrowLeakCheckExtension.assertNoneLeft("after the read");
      assertThat(logs.text())
          .contains(
              "Reading from "
                  + second.uri()
                  + " after an earlier location failed: [flightsql] DoGet failed for"
                  + " grpc://127.0.0.1:"
                  + deadPort
                  + ": UNAVAILABLE");
    }
  }

  @Test
  void aPlaintextLocationBehindATlsUriIsRefusedUnlessAllowed() throws Exception {
    CallRecorder plainCalls = new CallRecorder();
    try (DuckDbFlightSqlServer plain = server(plainCalls).start();
        DuckDbFlightSqlServer tls =
            server()
                .tls(certificates.serverCertificate(), certificates.serverKey())
                .endpointLocations(List.of(plain.uri()))
                .start()) {
      Map<String, String> trust =
          options("tlsRootCerts", certificates.caCertificate().toString(), "header.x-tenant", "t2");
      assertThatThrownBy(() -> count(tls, trust))
          .hasMessageContaining(
              "DoGet refused for "
                  + plain.uri()
                  + ": the endpoint location is plaintext while option 'uri' uses TLS")
          .hasMessageContaining("Set option 'allowInsecureLocations' to true");
      assertThat(methods(plainCalls.calls())).doesNotContain("DoGet");

      trust.put("allowInsecureLocations", "true");
      assertThat(count(tls, trust)).isEqualTo(1000);
      assertThat(methods(plainCalls.calls())).contains("DoGet");
    }
  }
}
