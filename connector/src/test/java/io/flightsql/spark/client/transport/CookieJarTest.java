package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CookieJarTest {
  private static final FlightUri HOST = FlightUri.of("db.example.com", 1, false);
  private static final String DO_GET = "/arrow.flight.protocol.FlightService/DoGet";
  private static final long NOW = 1_700_000_000_000L;

  @Test
  void maxAgeEndsACookieAndASessionCookieLasts() {
    CookieJar jar = new CookieJar(List.of());
    jar.receive(HOST, DO_GET, "short=1; Max-Age=60", NOW);
    jar.receive(HOST, DO_GET, "session=2", NOW);
    assertThat(jar.header(HOST, DO_GET, NOW + 59_000)).isEqualTo("short=1; session=2");
    assertThat(jar.header(HOST, DO_GET, NOW + 60_000)).isEqualTo("session=2");
    assertThat(jar.snapshot(NOW + 60_000)).extracting(c -> c.name).containsExactly("session");
  }

  @Test
  void anExpiresInThePastOrAMaxAgeOfZeroDeletesTheCookie() {
    CookieJar jar = new CookieJar(List.of());
    jar.receive(HOST, DO_GET, "a=1", NOW);
    jar.receive(HOST, DO_GET, "b=1", NOW);
    jar.receive(HOST, DO_GET, "a=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT", NOW);
    jar.receive(HOST, DO_GET, "b=gone; Max-Age=0", NOW);
    assertThat(jar.header(HOST, DO_GET, NOW)).isNull();
  }

  @Test
  void aNewValueTakesTheOldOnesPlaceAndLongerPathsGoFirst() {
    CookieJar jar = new CookieJar(List.of());
    jar.receive(HOST, DO_GET, "first=1; Path=/", NOW);
    jar.receive(HOST, DO_GET, "deep=1; Path=/arrow.flight.protocol.FlightService/DoGet", NOW + 1);
    jar.receive(HOST, DO_GET, "second=1; Path=/", NOW + 2);
    jar.receive(HOST, DO_GET, "first=2; Path=/", NOW + 3);
    // The replaced cookie keeps its place among those of the same path (its creation time).
    assertThat(jar.header(HOST, DO_GET, NOW + 4)).isEqualTo("deep=1; first=2; second=1");
  }

  @Test
  void theRfcsMatchingRules() {
    assertThat(CookieJar.domainMatches("a.b.example.com", "example.com")).isTrue();
    assertThat(CookieJar.domainMatches("badexample.com", "example.com")).isFalse();
    assertThat(CookieJar.domainMatches("10.0.0.1", "0.0.1")).isFalse();
    assertThat(CookieJar.pathMatches("/svc/DoGet", "/svc")).isTrue();
    assertThat(CookieJar.pathMatches("/svc/DoGet", "/svc/")).isTrue();
    assertThat(CookieJar.pathMatches("/svcx/DoGet", "/svc")).isFalse();
    assertThat(CookieJar.defaultPath("/arrow.flight.protocol.FlightService/DoGet"))
        .isEqualTo("/arrow.flight.protocol.FlightService");
    assertThat(CookieJar.defaultPath("/")).isEqualTo("/");
    assertThat(CallState.path(org.apache.arrow.flight.FlightMethod.POLL_FLIGHT_INFO))
        .isEqualTo("/arrow.flight.protocol.FlightService/PollFlightInfo");
  }
}
