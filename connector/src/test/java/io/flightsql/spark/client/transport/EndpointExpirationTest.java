package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.Ticket;
import org.junit.jupiter.api.Test;

class EndpointExpirationTest {
  private static final Ticket TICKET = new Ticket("t".getBytes(StandardCharsets.UTF_8));

  /** What a client gets: the endpoint as the server built it, through its wire form. */
  private static FlightEndpoint received(FlightEndpoint sent) throws Exception {
    return FlightEndpoint.deserialize(sent.serialize());
  }

  @Test
  void theServersTimeIsReadBackToTheNanosecond() throws Exception {
    Instant expiry = Instant.parse("2026-11-24T23:30:01.123456789Z");
    assertThat(EndpointExpiration.of(received(new FlightEndpoint(TICKET, expiry))))
        .contains(expiry);
  }

  @Test
  void anEndpointWithoutExpirationHasNone() throws Exception {
    assertThat(EndpointExpiration.of(received(new FlightEndpoint(TICKET)))).isEmpty();
  }

  @Test
  void timesThatAreNotDoubledAreKept() {
    Instant plausible = Instant.parse("2060-01-01T00:00:00Z");
    assertThat(EndpointExpiration.undoubled(plausible)).isEqualTo(plausible);
  }
}
