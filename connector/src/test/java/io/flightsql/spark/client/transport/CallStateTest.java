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
    CallHeaders headers = new FlightCallHeaders();
    state.onCallStarted(new CallInfo(method)).onBeforeSendingHeaders(headers);
    return headers;
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
    FlightClientMiddleware middleware = state.onCallStarted(new CallInfo(FlightMethod.DO_GET));
    CallHeaders answer = new FlightCallHeaders();
    answer.insert("set-cookie", "flightsql_session=abc123; Path=/");
    answer.insert("set-cookie", "other=1");
    middleware.onHeadersReceived(answer);

    CallHeaders sent = send(state, FlightMethod.GET_FLIGHT_INFO);
    assertThat(all(sent, "x-tenant")).containsExactly("acme");
    assertThat(all(sent, "authorization")).containsExactly("Bearer tok");
    assertThat(all(sent, "cookie")).containsExactly("flightsql_session=abc123; other=1");
  }

  @Test
  void anExpiredCookieIsForgotten() {
    CallState state = new CallState(ConnectionSettings.of(URI), SessionState.empty());
    CallHeaders set = new FlightCallHeaders();
    set.insert("set-cookie", "a=1");
    state.onCallStarted(new CallInfo(FlightMethod.DO_GET)).onHeadersReceived(set);
    CallHeaders expire = new FlightCallHeaders();
    expire.insert("set-cookie", "a=gone; Max-Age=0");
    state.onCallStarted(new CallInfo(FlightMethod.DO_GET)).onHeadersReceived(expire);
    assertThat(send(state, FlightMethod.DO_GET).containsKey("cookie")).isFalse();
  }

  @Test
  void basicAuthKeepsTheTokenTheServerSendsAndHandsItOnWithTheCookies() {
    ConnectionSettings settings =
        ConnectionSettings.builder(FlightUri.of("127.0.0.1", 4321, false))
            .basicAuth("alice-" + System.nanoTime(), "pw")
            .build();
    CallState driver = new CallState(settings, SessionState.empty());
    assertThat(driver.needsLogin()).isTrue();
    CallHeaders handshakeAnswer = new FlightCallHeaders();
    handshakeAnswer.insert("authorization", "Bearer fresh-token");
    handshakeAnswer.insert("set-cookie", "flightsql_session=s1");
    driver.onCallStarted(new CallInfo(FlightMethod.HANDSHAKE)).onHeadersReceived(handshakeAnswer);
    assertThat(driver.needsLogin()).isFalse();
    // The handshake itself carries the basic credentials of its call option, not the token.
    assertThat(send(driver, FlightMethod.HANDSHAKE).containsKey("authorization")).isFalse();

    SessionState shipped = driver.snapshot();
    assertThat(shipped.toString())
        .isEqualTo("SessionState{token=*****, cookies=[flightsql_session]}");
    CallState executor = new CallState(settings, shipped);
    CallHeaders sent = send(executor, FlightMethod.DO_GET);
    assertThat(all(sent, "authorization")).containsExactly("Bearer fresh-token");
    assertThat(all(sent, "cookie")).containsExactly("flightsql_session=s1");

    executor.tokenRefused();
    assertThat(executor.needsLogin()).isTrue();
    // A new session of the same identity in this JVM no longer starts with the refused token.
    assertThat(new CallState(settings, SessionState.empty()).needsLogin()).isTrue();
  }
}
