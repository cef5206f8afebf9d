package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightMethod;
import org.junit.jupiter.api.Test;

class CallStateTest {
  private static final FlightUri URI = FlightUri.of("127.0.0.1", 1234, true);

  private static CallHeaders send(CallState state, FlightMethod method) {
    return send(state, URI, method);
  }

  private static CallHeaders send(CallState state, FlightUri to, FlightMethod method) {
    CallHeaders headers = new FlightCallHeaders();
    state.forTarget(to).onCallStarted(new CallInfo(method)).onBeforeSendingHeaders(headers);
    return headers;
  }

  /** The answer of {@code from} to a call of {@code method}, with these set-cookie headers. */
  private static void answer(CallState state, FlightUri from, FlightMethod method, String... set) {
    CallHeaders headers = new FlightCallHeaders();
    for (String cookie : set) {
      headers.insert("set-cookie", cookie);
    }
    state.forTarget(from).onCallStarted(new CallInfo(method)).onHeadersReceived(headers);
  }

  private static List<String> all(CallHeaders headers, String name) {
    List<String> out = new ArrayList<>();
    headers.getAll(name).forEach(out::add);
    return out;
  }

  @Test
  void sendsHeadersTokenAndCookiesOnEveryCall() {
    ConnectionSettings settings =
        ConnectionSettings.builder(URI).token("tok").header("x-tenant", "acme").build();
    CallState state = new CallState(settings, SessionState.empty());
    FlightClientMiddleware middleware =
        state.forTarget(URI).onCallStarted(new CallInfo(FlightMethod.DO_GET));
    CallHeaders answer = new FlightCallHeaders();
    answer.insert("set-cookie", "flightsql_session=abc123; Path=/");
    answer.insert("set-cookie", "other=1");
    middleware.onHeadersReceived(answer);

    CallHeaders sent = send(state, FlightMethod.GET_FLIGHT_INFO);
    assertThat(all(sent, "x-tenant")).containsExactly("acme");
    assertThat(all(sent, "authorization")).containsExactly("Bearer tok");
    // Longer paths first: "other" has the default path of the call, the service's.
    assertThat(all(sent, "cookie")).containsExactly("other=1; flightsql_session=abc123");
  }

  @Test
  void anExpiredCookieIsForgotten() {
    CallState state = new CallState(ConnectionSettings.of(URI), SessionState.empty());
    answer(state, URI, FlightMethod.DO_GET, "a=1");
    answer(state, URI, FlightMethod.DO_GET, "a=gone; Max-Age=0");
    assertThat(send(state, FlightMethod.DO_GET).containsKey("cookie")).isFalse();
  }

  @Test
  void basicAuthKeepsTheTokenTheServerSendsAndHandsItOnWithTheCookies() {
    ConnectionSettings settings =
        ConnectionSettings.builder(FlightUri.of("127.0.0.1", 4321, false))
            .basicAuth("alice-" + System.nanoTime(), "pw")
            .build();
    CallState driver = new CallState(settings, SessionState.empty());
    assertThat(driver.needsLogin(settings.uri())).isTrue();
    CallHeaders handshakeAnswer = new FlightCallHeaders();
    handshakeAnswer.insert("authorization", "Bearer fresh-token");
    handshakeAnswer.insert("set-cookie", "flightsql_session=s1");
    driver
        .forTarget(settings.uri())
        .onCallStarted(new CallInfo(FlightMethod.HANDSHAKE))
        .onHeadersReceived(handshakeAnswer);
    assertThat(driver.needsLogin(settings.uri())).isFalse();
    // The handshake itself carries the basic credentials of its call option, not the token.
    assertThat(send(driver, settings.uri(), FlightMethod.HANDSHAKE).containsKey("authorization"))
        .isFalse();

    SessionState shipped = driver.snapshot();
    assertThat(shipped.toString())
        .isEqualTo(
            "SessionState{token=*****, cookies=[flightsql_session@127.0.0.1/arrow.flight.protocol.FlightService]}");
    CallState executor = new CallState(settings, shipped);
    CallHeaders sent = send(executor, settings.uri(), FlightMethod.DO_GET);
    assertThat(all(sent, "authorization")).containsExactly("Bearer fresh-token");
    assertThat(all(sent, "cookie")).containsExactly("flightsql_session=s1");

    executor.tokenRefused(settings.uri());
    assertThat(executor.needsLogin(settings.uri())).isTrue();
    // A new session of the same identity in this JVM no longer starts with the refused token.
    assertThat(new CallState(settings, SessionState.empty()).needsLogin(settings.uri())).isTrue();
  }

  @Test
  void aCookieWithoutDomainGoesBackOnlyToTheHostThatSetIt() {
    FlightUri a = FlightUri.of("a.example.com", 1, false);
    FlightUri b = FlightUri.of("b.example.com", 1, false);
    CallState state = new CallState(ConnectionSettings.of(a), SessionState.empty());
    answer(state, a, FlightMethod.GET_FLIGHT_INFO, "session=on-a");
    answer(state, b, FlightMethod.GET_FLIGHT_INFO, "session=on-b");

    assertThat(all(send(state, a, FlightMethod.DO_GET), "cookie")).containsExactly("session=on-a");
    assertThat(all(send(state, b, FlightMethod.DO_GET), "cookie")).containsExactly("session=on-b");
    // Cookies do not separate ports (RFC 6265, 8.5).
    assertThat(
            all(
                send(state, FlightUri.of("a.example.com", 2, false), FlightMethod.DO_GET),
                "cookie"))
        .containsExactly("session=on-a");
    assertThat(
            send(state, FlightUri.of("c.example.com", 1, false), FlightMethod.DO_GET)
                .containsKey("cookie"))
        .isFalse();
  }

  @Test
  void aDomainCookieGoesToItsDomainOnlyAndNoHostSetsOneForAnotherDomainOrAPublicSuffix() {
    FlightUri coordinator = FlightUri.of("coordinator.corp.example.com", 1, false);
    CallState state =
        new CallState(
            ConnectionSettings.builder(coordinator)
                .credentialHosts(CredentialHosts.parse("*"))
                .build(),
            SessionState.empty());
    answer(
        state,
        coordinator,
        FlightMethod.GET_FLIGHT_INFO,
        "shared=1; Domain=.corp.example.com",
        "foreign=1; Domain=other.org",
        "everywhere=1; Domain=com");

    assertThat(
            all(
                send(
                    state, FlightUri.of("worker7.corp.example.com", 1, false), FlightMethod.DO_GET),
                "cookie"))
        .containsExactly("shared=1");
    assertThat(
            all(
                send(state, FlightUri.of("corp.example.com", 1, false), FlightMethod.DO_GET),
                "cookie"))
        .containsExactly("shared=1");
    assertThat(
            send(state, FlightUri.of("example.com", 1, false), FlightMethod.DO_GET)
                .containsKey("cookie"))
        .isFalse();
    assertThat(
            send(state, FlightUri.of("other.org", 1, false), FlightMethod.DO_GET)
                .containsKey("cookie"))
        .isFalse();
    assertThat(
            send(state, FlightUri.of("x.com", 1, false), FlightMethod.DO_GET).containsKey("cookie"))
        .isFalse();
  }

  @Test
  void aDomainCookieGoesOnlyToTheHostsOptionCredentialHostsNames() {
    FlightUri coordinator = FlightUri.of("coordinator.corp.example.com", 1, false);
    FlightUri worker = FlightUri.of("worker7.corp.example.com", 1, false);
    CallState state = new CallState(ConnectionSettings.of(coordinator), SessionState.empty());
    answer(state, coordinator, FlightMethod.GET_FLIGHT_INFO, "shared=1; Domain=.corp.example.com");
    answer(state, worker, FlightMethod.DO_GET, "own=w");
    assertThat(all(send(state, worker, FlightMethod.DO_GET), "cookie")).containsExactly("own=w");
    assertThat(all(send(state, coordinator, FlightMethod.DO_GET), "cookie"))
        .containsExactly("shared=1");
  }

  @Test
  void tokenAndHeadersGoOnlyToTheHostOfUriAndTheHostsOptionCredentialHostsNames() {
    FlightUri uri = FlightUri.of("127.0.0.1", 1234, false);
    FlightUri samePortElsewhere = FlightUri.of("127.0.0.2", 1234, false);
    FlightUri otherPort = FlightUri.of("127.0.0.1", 5678, false);
    ConnectionSettings.Builder settings =
        ConnectionSettings.builder(uri).token("tok").header("x-api-key", "k3y");
    CallState strict = new CallState(settings.build(), SessionState.empty());
    CallHeaders elsewhere = send(strict, samePortElsewhere, FlightMethod.DO_GET);
    assertThat(elsewhere.keys()).doesNotContain("authorization", "x-api-key", "cookie");
    assertThat(all(send(strict, otherPort, FlightMethod.DO_GET), "x-api-key"))
        .as("ports do not count")
        .containsExactly("k3y");
    assertThat(send(strict, FlightUri.of("localhost", 1234, false), FlightMethod.DO_GET).keys())
        .as("another spelling of the same host is another host")
        .doesNotContain("authorization");

    CallState named =
        new CallState(
            settings.credentialHosts(CredentialHosts.parse("127.0.0.2")).build(),
            SessionState.empty());
    CallHeaders toWorker = send(named, samePortElsewhere, FlightMethod.DO_GET);
    assertThat(all(toWorker, "authorization")).containsExactly("Bearer tok");
    assertThat(all(toWorker, "x-api-key")).containsExactly("k3y");

    CallState domain =
        new CallState(
            ConnectionSettings.builder(FlightUri.of("fe.doris.internal", 9030, false))
                .token("tok")
                .credentialHosts(CredentialHosts.parse("*.doris.internal"))
                .build(),
            SessionState.empty());
    assertThat(
            all(
                send(domain, FlightUri.of("be7.doris.internal", 8050, false), FlightMethod.DO_GET),
                "authorization"))
        .containsExactly("Bearer tok");
    assertThat(
            send(
                    domain,
                    FlightUri.of("be7.doris.internal.example.org", 8050, false),
                    FlightMethod.DO_GET)
                .keys())
        .doesNotContain("authorization");
  }

  @Test
  void tokensAreKeptPerServerAndNoneIsTakenFromAHostTheCredentialsDoNotGoTo() {
    FlightUri uri = FlightUri.of("127.0.0.1", 4321, false);
    FlightUri worker = FlightUri.of("127.0.0.2", 4321, false);
    FlightUri stranger = FlightUri.of("127.0.0.3", 4321, false);
    ConnectionSettings settings =
        ConnectionSettings.builder(uri)
            .basicAuth("bob-" + System.nanoTime(), "pw")
            .credentialHosts(CredentialHosts.parse("127.0.0.2"))
            .build();
    CallState state = new CallState(settings, SessionState.empty());
    assertThat(state.needsLogin(stranger)).as("no login to a host not named").isFalse();
    bearer(state, uri, "from-uri");
    // The coordinator's token goes to the workers named, until one hands back its own.
    assertThat(all(send(state, worker, FlightMethod.DO_GET), "authorization"))
        .containsExactly("Bearer from-uri");
    bearer(state, worker, "from-worker");
    bearer(state, stranger, "from-stranger");
    assertThat(all(send(state, worker, FlightMethod.DO_GET), "authorization"))
        .containsExactly("Bearer from-worker");
    assertThat(all(send(state, uri, FlightMethod.DO_GET), "authorization"))
        .containsExactly("Bearer from-uri");
    assertThat(send(state, stranger, FlightMethod.DO_GET).keys()).doesNotContain("authorization");
    assertThat(state.snapshot().bearerToken()).isEqualTo("from-uri");

    // Another session of the same identity in this JVM finds each server's own token.
    CallState next = new CallState(settings, SessionState.empty());
    assertThat(all(send(next, worker, FlightMethod.DO_GET), "authorization"))
        .containsExactly("Bearer from-worker");
    assertThat(all(send(next, uri, FlightMethod.DO_GET), "authorization"))
        .containsExactly("Bearer from-uri");

    // A worker that refuses the token gets a login of its own; the coordinator keeps its token.
    next.tokenRefused(worker);
    assertThat(next.needsLogin(worker)).isTrue();
    assertThat(next.needsLogin(uri)).isFalse();
  }

  private static void bearer(CallState state, FlightUri from, String token) {
    CallHeaders headers = new FlightCallHeaders();
    headers.insert("authorization", "Bearer " + token);
    state
        .forTarget(from)
        .onCallStarted(new CallInfo(FlightMethod.HANDSHAKE))
        .onHeadersReceived(headers);
  }

  @Test
  void pathAndSecureLimitTheCallsACookieGoesWith() {
    FlightUri plain = FlightUri.of("db.example.com", 1, false);
    FlightUri tls = FlightUri.of("db.example.com", 1, true);
    CallState state = new CallState(ConnectionSettings.of(tls), SessionState.empty());
    answer(
        state,
        tls,
        FlightMethod.GET_FLIGHT_INFO,
        "reads=1; Path=/arrow.flight.protocol.FlightService/DoGet",
        "secret=1; Secure");

    assertThat(all(send(state, tls, FlightMethod.DO_GET), "cookie"))
        .containsExactly("reads=1; secret=1");
    assertThat(all(send(state, tls, FlightMethod.DO_PUT), "cookie")).containsExactly("secret=1");
    assertThat(all(send(state, plain, FlightMethod.DO_GET), "cookie")).containsExactly("reads=1");
  }

  @Test
  void cookiesTravelToExecutorsWithTheHostsTheyGoTo() throws Exception {
    FlightUri coordinator = FlightUri.of("coordinator.example.com", 1, false);
    FlightUri worker = FlightUri.of("worker.example.com", 1, false);
    CallState driver = new CallState(ConnectionSettings.of(coordinator), SessionState.empty());
    answer(
        driver,
        coordinator,
        FlightMethod.GET_FLIGHT_INFO,
        "ticket_session=t1",
        "persistent=p; Max-Age=3600");
    answer(driver, worker, FlightMethod.DO_GET, "worker_session=w1");

    SessionState shipped = serializedAndBack(driver.snapshot());
    assertThat(shipped.toString())
        .doesNotContain("t1", "w1", "=p")
        .contains("ticket_session@coordinator.example.com", "worker_session@worker.example.com");
    CallState executor = new CallState(ConnectionSettings.of(coordinator), shipped);
    assertThat(all(send(executor, coordinator, FlightMethod.DO_GET), "cookie"))
        .containsExactly("ticket_session=t1; persistent=p");
    assertThat(all(send(executor, worker, FlightMethod.DO_GET), "cookie"))
        .containsExactly("worker_session=w1");
  }

  private static SessionState serializedAndBack(SessionState state) throws Exception {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(state);
    }
    try (java.io.ObjectInputStream in =
        new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      return (SessionState) in.readObject();
    }
  }
}
