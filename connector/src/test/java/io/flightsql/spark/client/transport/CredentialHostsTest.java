package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CredentialHostsTest {
  private static final FlightUri COORDINATOR = FlightUri.of("fe.doris.internal", 9090, false);

  private static boolean allows(String option, String host) {
    CredentialHosts hosts = option == null ? CredentialHosts.NONE : CredentialHosts.parse(option);
    return hosts.allows(COORDINATOR, FlightUri.of(host, 8050, false));
  }

  @Test
  void theHostOfUriIsAlwaysAllowedOnAnyPortAndNoOtherByDefault() {
    assertThat(allows(null, "fe.doris.internal")).isTrue();
    assertThat(allows(null, "FE.Doris.Internal")).isTrue();
    assertThat(allows(null, "be1.doris.internal")).isFalse();
    assertThat(CredentialHosts.NONE.allows(COORDINATOR, FlightUri.of("127.0.0.1", 1, false)))
        .isFalse();
  }

  @Test
  void hostsAreComparedAsWrittenWithoutResolvingThem() {
    FlightUri local = FlightUri.of("localhost", 1, false);
    assertThat(CredentialHosts.NONE.allows(local, FlightUri.of("127.0.0.1", 1, false))).isFalse();
    assertThat(CredentialHosts.parse("127.0.0.1").allows(local, FlightUri.of("127.0.0.1", 2, true)))
        .isTrue();
    FlightUri v6 = FlightUri.parse("grpc://[::1]:1");
    assertThat(CredentialHosts.NONE.allows(v6, FlightUri.parse("grpc://[::1]:2"))).isTrue();
    assertThat(CredentialHosts.parse("::1").allows(COORDINATOR, v6)).isTrue();
  }

  @Test
  void aWildcardNamesTheHostsUnderADomainAndAStarAnyHost() {
    assertThat(allows("*.doris.internal", "be1.doris.internal")).isTrue();
    assertThat(allows("*.doris.internal", "a.b.doris.internal")).isTrue();
    assertThat(allows("*.doris.internal", "doris.internal")).isFalse();
    assertThat(allows("*.doris.internal", "be1.doris.internal.evil.org")).isFalse();
    assertThat(allows("*.doris.internal", "evildoris.internal")).isFalse();
    assertThat(allows("*.0.0.2", "127.0.0.2")).as("a wildcard names no address").isFalse();
    assertThat(allows("be1.doris.internal, be2.doris.internal", "be2.doris.internal")).isTrue();
    assertThat(allows("be1.doris.internal", "be3.doris.internal")).isFalse();
    assertThat(allows("*", "anything.example.org")).isTrue();
    assertThat(allows("*", "10.1.2.3")).isTrue();
  }

  @Test
  void entriesThatAreNotHostsAreRefusedWithTheReason() {
    for (String bad :
        new String[] {"be1:8050", "grpc://be1", "10.0.0.7:8050", "be*.x", "[::1]:5"}) {
      assertThatThrownBy(() -> CredentialHosts.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is not a host: expected host names or addresses without scheme");
    }
    assertThatThrownBy(() -> CredentialHosts.parse(" , ")).hasMessage("no host is given");
    assertThat(CredentialHosts.parse(" A.example.com ,*.B.example.com").toString())
        .isEqualTo("a.example.com,*.b.example.com");
  }
}
