package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth2.BasicAuthCredentialWriter;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authentication, TLS and mutual TLS of the server, and the caller's middleware ahead of
 * authentication (a {@link CallRecorder}), seen through Arrow's own Flight client.
 */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class ServerSecurityTest {

  private static final String QUERY = "SELECT 42 AS answer";

  @TempDir static Path certificateDirectory;
  private static TestCertificates certificates;

  @BeforeAll
  static void generateCertificates() {
    certificates = TestCertificates.create(certificateDirectory);
  }

  // ---- Authentication

  @Test
  void withoutAuthenticationEveryCallIsAccepted() throws Exception {
    try (DuckDbFlightSqlServer server = server().start();
        Client client = Client.plain(server)) {
      assertThat(client.answer()).isEqualTo("42");
      assertThatThrownBy(server::expireTokens)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("has no authentication");
    }
  }

  @Test
  void basicAuthHandsOutABearerTokenThatLaterCallsUse() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).basicAuth("alice", "s3cret").start();
        Client client = Client.plain(server)) {
      CredentialCallOption bearer =
          client.flight.authenticateBasicToken("alice", "s3cret").orElseThrow();

      assertThat(client.answer(bearer)).isEqualTo("42");
      String authorization = recorder.calls().get(0).header("authorization");
      assertThat(authorization).startsWith("Basic ");
      assertThat(recorder.calls().subList(1, 3))
          .extracting(RecordedCall::method)
          .containsExactly("GetFlightInfo", "DoGet");
      assertThat(recorder.calls().subList(1, 3))
          .allSatisfy(call -> assertThat(call.header("authorization")).startsWith("Bearer "));
    }
  }

  @Test
  void basicCredentialsOnEveryCallWorkToo() throws Exception {
    try (DuckDbFlightSqlServer server = server().basicAuth("alice", "s3cret").start();
        Client client = Client.plain(server)) {
      assertThat(client.answer(basic("alice", "s3cret"))).isEqualTo("42");
    }
  }

  @Test
  void basicAuthRefusesMissingAndWrongCredentials() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).basicAuth("alice", "s3cret").start();
        Client client = Client.plain(server)) {
      assertUnauthenticated(
          () -> client.answer(),
          "Missing credentials: send an 'authorization' header of 'Basic <base64 of"
              + " user:password>' or 'Bearer <token>'");
      assertUnauthenticated(
          () -> client.flight.authenticateBasicToken("alice", "wrong"),
          "Invalid user name or password");
      assertUnauthenticated(
          () -> client.answer(basic("mallory", "s3cret")), "Invalid user name or password");
      assertUnauthenticated(
          () -> client.answer(bearer("made-up")),
          "Invalid or expired bearer token: authenticate again with the user name and password");
      // The caller's middleware runs ahead of authentication: refused calls are recorded, with
      // what they sent.
      assertThat(recorder.calls()).hasSize(4);
      assertThat(recorder.calls().get(0).header("authorization")).isNull();
    }
  }

  @Test
  void expiredTokensAreRefusedUntilTheClientAuthenticatesAgain() throws Exception {
    try (DuckDbFlightSqlServer server = server().basicAuth("alice", "s3cret").start();
        Client client = Client.plain(server)) {
      CredentialCallOption first =
          client.flight.authenticateBasicToken("alice", "s3cret").orElseThrow();
      assertThat(client.answer(first)).isEqualTo("42");

      server.expireTokens();

      assertUnauthenticated(() -> client.answer(first), "Invalid or expired bearer token");
      CredentialCallOption second =
          client.flight.authenticateBasicToken("alice", "s3cret").orElseThrow();
      assertThat(client.answer(second)).isEqualTo("42");
    }
  }

  @Test
  void aFixedBearerTokenIsAcceptedAndAnyOtherRefused() throws Exception {
    try (DuckDbFlightSqlServer server = server().bearerToken("t0ken").start();
        Client client = Client.plain(server)) {
      assertThat(client.answer(bearer("t0ken"))).isEqualTo("42");
      assertUnauthenticated(() -> client.answer(bearer("t0ken2")), "Invalid or expired bearer");
      assertUnauthenticated(
          () -> client.answer(), "Missing credentials: send an 'authorization' header of 'Bearer");
      assertUnauthenticated(
          () -> client.answer(basic("alice", "s3cret")),
          "This server does not accept Basic credentials");
      server.expireTokens();
      assertThat(client.answer(bearer("t0ken"))).as("fixed tokens never expire").isEqualTo("42");
    }
  }

  @Test
  void basicAuthAndAFixedTokenCanBeUsedSideBySide() throws Exception {
    try (DuckDbFlightSqlServer server =
            server().basicAuth("alice", "s3cret").bearerToken("t0ken").start();
        Client client = Client.plain(server)) {
      assertThat(client.answer(bearer("t0ken"))).isEqualTo("42");
      assertThat(client.answer(basic("alice", "s3cret"))).isEqualTo("42");
      assertUnauthenticated(() -> client.answer(bearer("other")), "Invalid or expired");
    }
  }

  @Test
  void builderRefusesBadCredentialsWithoutRepeatingSecrets() {
    assertThatThrownBy(() -> DuckDbFlightSqlServer.builder().basicAuth("a:b", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid value 'a:b' for option 'username': expected a non-empty name without ':'");
    assertThatThrownBy(() -> DuckDbFlightSqlServer.builder().basicAuth("alice", ""))
        .hasMessage("Invalid value for option 'password': expected a non-empty password");
    assertThatThrownBy(() -> DuckDbFlightSqlServer.builder().bearerToken(" secret "))
        .hasMessage(
            "Invalid value for option 'bearerToken': expected a non-empty token without"
                + " surrounding spaces");
  }

  // ---- The caller's middleware and action observers, and the calls a CallRecorder records

  @Test
  void recordsEveryCallsMethodAndHeaders() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).start();
        Client client = Client.plain(server)) {
      CallHeaders headers = new FlightCallHeaders();
      headers.insert("X-Tenant", "blue");
      assertThat(client.answer(new HeaderCallOption(headers))).isEqualTo("42");
      client.sql.prepare("SELECT 1").close();

      List<RecordedCall> calls = recorder.calls();
      assertThat(calls)
          .extracting(RecordedCall::method)
          .containsExactly(
              "GetFlightInfo",
              "DoGet",
              "DoAction:CreatePreparedStatement",
              "DoAction:ClosePreparedStatement");
      assertThat(calls.get(0).header("x-tenant")).isEqualTo("blue");
      assertThat(calls.get(0).header("X-TENANT")).isEqualTo("blue");
      assertThat(calls.get(0).headers()).containsEntry("x-tenant", List.of("blue"));
      assertThat(calls.get(2).header("x-tenant")).isNull();

      recorder.clear();
      assertThat(recorder.calls()).isEmpty();
    }
  }

  @Test
  void withoutTheActionObserverActionsAreRecordedWithoutTheirType() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server().middleware(CallRecorder.KEY, recorder).start();
        Client client = Client.plain(server)) {
      client.sql.prepare("SELECT 1").close();

      assertThat(recorder.calls())
          .extracting(RecordedCall::method)
          .containsExactly("DoAction", "DoAction");
    }
  }

  @Test
  void everyActionObserverIsToldTheTypeOfEachActionWithItsCallsMiddleware() throws Exception {
    CallRecorder recorder = new CallRecorder();
    List<String> seen = new CopyOnWriteArrayList<>();
    try (DuckDbFlightSqlServer server =
            server(recorder)
                .actionObserver(
                    (context, type) -> {
                      if (context.getMiddleware(CallRecorder.KEY) != null) {
                        seen.add(type);
                      }
                    })
                .start();
        Client client = Client.plain(server)) {
      client.answer();
      client.sql.prepare("SELECT 1").close();

      assertThat(seen).containsExactly("CreatePreparedStatement", "ClosePreparedStatement");
      assertThat(recorder.calls())
          .extracting(RecordedCall::method)
          .containsExactly(
              "GetFlightInfo",
              "DoGet",
              "DoAction:CreatePreparedStatement",
              "DoAction:ClosePreparedStatement");
    }
  }

  @Test
  void middlewareKeysMustBeUniqueAndTheBuilderRefusesNulls() {
    CallRecorder recorder = new CallRecorder();
    assertThatThrownBy(
            () ->
                server()
                    .middleware(CallRecorder.KEY, recorder)
                    .middleware(FlightServerMiddleware.Key.of("call-recorder"), recorder)
                    .start()
                    .close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Key already exists: call-recorder");
    assertThatThrownBy(() -> server().middleware(CallRecorder.KEY, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid value 'null' for option 'middleware': expected a key and a factory");
    assertThatThrownBy(() -> server().actionObserver(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid value 'null' for option 'actionObserver': expected an observer");
  }

  @Test
  void recordedCallsHideCredentialsWhenPrinted() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = server(recorder).bearerToken("t0ken").start();
        Client client = Client.plain(server)) {
      client.answer(bearer("t0ken"));

      RecordedCall call = recorder.calls().get(0);
      assertThat(call.header("authorization")).isEqualTo("Bearer t0ken");
      assertThat(call.toString()).contains("authorization=<redacted>").doesNotContain("t0ken");
    }
  }

  // ---- TLS

  @Test
  void tlsServesClientsThatTrustItsCa() throws Exception {
    try (DuckDbFlightSqlServer server =
            server().tls(certificates.serverCertificate(), certificates.serverKey()).start();
        Client client = Client.tls(server, certificates.caCertificate(), null, null)) {
      assertThat(server.uri()).startsWith("grpc+tls://127.0.0.1:");
      assertThat(client.answer()).isEqualTo("42");
    }
  }

  @Test
  void tlsIsRefusedByAClientThatTrustsAnotherCa() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server =
            server(recorder)
                .tls(certificates.serverCertificate(), certificates.serverKey())
                .start();
        Client client = Client.tls(server, certificates.untrustedCaCertificate(), null, null)) {
      assertThatThrownBy(client::answer)
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAVAILABLE));
      assertThat(recorder.calls()).isEmpty();
    }
  }

  @Test
  void aPlainClientCannotTalkToATlsServer() throws Exception {
    try (DuckDbFlightSqlServer server =
            server().tls(certificates.serverCertificate(), certificates.serverKey()).start();
        BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client =
            new FlightSqlClient(
                FlightClient.builder(
                        allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
                    .build())) {
      assertThatThrownBy(() -> client.execute(QUERY))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAVAILABLE));
    }
  }

  @Test
  void aSelfSignedServerIsReachedWithVerificationOff() throws Exception {
    try (DuckDbFlightSqlServer server =
            server()
                .tls(certificates.selfSignedServerCertificate(), certificates.selfSignedServerKey())
                .start();
        BufferAllocator allocator = new RootAllocator();
        FlightSqlClient trusting =
            new FlightSqlClient(
                FlightClient.builder(allocator, new Location(URI.create(server.uri())))
                    .verifyServer(false)
                    .build());
        Client verifying = Client.tls(server, certificates.caCertificate(), null, null)) {
      assertThat(trusting.execute(QUERY).getRecords()).isEqualTo(1);
      assertThatThrownBy(verifying::answer).isInstanceOf(FlightRuntimeException.class);
    }
  }

  @Test
  void mutualTlsServesOnlyClientsWithACertificateFromItsCa() throws Exception {
    try (DuckDbFlightSqlServer server =
        server()
            .tls(certificates.serverCertificate(), certificates.serverKey())
            .clientCertificates(certificates.caCertificate())
            .start()) {
      try (Client client =
          Client.tls(
              server,
              certificates.caCertificate(),
              certificates.clientCertificate(),
              certificates.clientKey())) {
        assertThat(client.answer()).isEqualTo("42");
      }
      try (Client anonymous = Client.tls(server, certificates.caCertificate(), null, null)) {
        assertThatThrownBy(anonymous::answer)
            .isInstanceOfSatisfying(
                FlightRuntimeException.class,
                e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAVAILABLE));
      }
      // A certificate from another CA: the server's own, self-signed one.
      try (Client stranger =
          Client.tls(
              server,
              certificates.caCertificate(),
              certificates.selfSignedServerCertificate(),
              certificates.selfSignedServerKey())) {
        assertThatThrownBy(stranger::answer).isInstanceOf(FlightRuntimeException.class);
      }
    }
  }

  @Test
  void tlsAndBasicAuthTogether() throws Exception {
    try (DuckDbFlightSqlServer server =
            server()
                .tls(certificates.serverCertificate(), certificates.serverKey())
                .basicAuth("alice", "s3cret")
                .start();
        Client client = Client.tls(server, certificates.caCertificate(), null, null)) {
      CredentialCallOption bearer =
          client.flight.authenticateBasicToken("alice", "s3cret").orElseThrow();
      assertThat(client.answer(bearer)).isEqualTo("42");
      assertUnauthenticated(client::answer, "Missing credentials");
    }
  }

  @Test
  void startRefusesClientCertificatesWithoutTlsAndMissingFiles() {
    assertThatThrownBy(
            () -> server().clientCertificates(certificates.caCertificate()).start().close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Option 'clientCertificates' needs TLS: set tls(certificateChain, privateKey) too");
    Path missing = certificateDirectory.resolve("missing.pem");
    assertThatThrownBy(() -> server().tls(missing, certificates.serverKey()).start().close())
        .isInstanceOf(IOException.class)
        .hasMessage("Invalid value '" + missing + "' for option 'tls': no such readable file");
  }

  @Test
  void certificatesArePemWithPkcs8Keys() throws Exception {
    assertThat(Files.readString(certificates.serverKey()))
        .startsWith("-----BEGIN PRIVATE KEY-----");
    assertThat(Files.readString(certificates.clientKey()))
        .startsWith("-----BEGIN PRIVATE KEY-----");
    assertThat(Files.readString(certificates.caCertificate()))
        .startsWith("-----BEGIN CERTIFICATE-----");
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    X509Certificate server;
    try (InputStream in = Files.newInputStream(certificates.serverCertificate())) {
      server = (X509Certificate) factory.generateCertificate(in);
    }
    List<String> names =
        server.getSubjectAlternativeNames().stream().map(n -> String.valueOf(n.get(1))).toList();
    assertThat(names).containsExactlyInAnyOrder("127.0.0.1", "0:0:0:0:0:0:0:1", "localhost");
    server.checkValidity();
  }

  // ---- Helpers

  private static DuckDbFlightSqlServerBuilder server() {
    return DuckDbFlightSqlServer.builder().lineitemRows(0).endpoints(1);
  }

  /**
   * A builder whose server records its calls, with the type of each action, in {@code recorder}.
   */
  private static DuckDbFlightSqlServerBuilder server(CallRecorder recorder) {
    return server().middleware(CallRecorder.KEY, recorder).actionObserver(recorder::actionStarted);
  }

  private static CallOption basic(String user, String password) {
    return new CredentialCallOption(new BasicAuthCredentialWriter(user, password));
  }

  private static CallOption bearer(String token) {
    return new CredentialCallOption(new BearerCredentialWriter(token));
  }

  private static void assertUnauthenticated(ThrowingCallable call, String messageStart) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> {
              assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
              assertThat(e.getMessage()).startsWith(messageStart);
            });
  }

  /** A Flight SQL client of one server, whose close checks its allocator for leaks. */
  private static final class Client implements AutoCloseable {
    final BufferAllocator allocator = new RootAllocator();
    final FlightClient flight;
    final FlightSqlClient sql;

    private Client(FlightClient.Builder builder) {
      this.flight = builder.allocator(allocator).build();
      this.sql = new FlightSqlClient(flight);
    }

    static Client plain(DuckDbFlightSqlServer server) {
      return new Client(FlightClient.builder().location(new Location(URI.create(server.uri()))));
    }

    static Client tls(DuckDbFlightSqlServer server, Path ca, Path certificate, Path key)
        throws IOException {
      FlightClient.Builder builder =
          FlightClient.builder().location(new Location(URI.create(server.uri())));
      // The builder reads these streams when it builds, so they are in memory, not open files.
      builder.trustedCertificates(new ByteArrayInputStream(Files.readAllBytes(ca)));
      if (certificate != null) {
        builder.clientCertificate(
            new ByteArrayInputStream(Files.readAllBytes(certificate)),
            new ByteArrayInputStream(Files.readAllBytes(key)));
      }
      return new Client(builder);
    }

    /** Runs {@link #QUERY} and reads its one value through its ticket. */
    String answer(CallOption... options) throws Exception {
      FlightInfo info = sql.execute(QUERY, options);
      try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket(), options)) {
        assertThat(stream.next()).isTrue();
        return String.valueOf(stream.getRoot().getVector(0).getObject(0));
      }
    }

    @Override
    public void close() throws Exception {
      sql.close();
      allocator.close();
    }
  }
}
