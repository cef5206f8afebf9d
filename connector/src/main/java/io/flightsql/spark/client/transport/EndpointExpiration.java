package io.flightsql.spark.client.transport;

import java.time.Instant;
import java.util.Optional;
import org.apache.arrow.flight.FlightEndpoint;

/**
 * An endpoint's {@code expiration_time}, as the server sent it. Arrow Java 18 reads a protobuf
 * timestamp of {@code s} seconds and {@code n} nanoseconds as {@code 2s} seconds and {@code n}
 * nanoseconds ({@code Instant.ofEpochSecond(s, Timestamps.toNanos(t))}), so that {@link
 * FlightEndpoint#getExpirationTime()} is decades late: an expiration of today reads as one of the
 * 2080s. A time after {@link #DOUBLED_AFTER} is taken for such a doubled one and halved back; no
 * server sets its endpoints to expire that late, and a fixed Arrow gives times below it, which are
 * kept as they are.
 */
public final class EndpointExpiration {
  /** 2070-01-01T00:00:00Z: below any doubled time from 2035 on, above any plausible real one. */
  static final Instant DOUBLED_AFTER = Instant.ofEpochSecond(3_155_760_000L);

  private EndpointExpiration() {}

  /** When the endpoint's ticket stops being redeemable; empty when the server set no time. */
  public static Optional<Instant> of(FlightEndpoint endpoint) {
    return endpoint.getExpirationTime().map(EndpointExpiration::undoubled);
  }

  static Instant undoubled(Instant read) {
    return read.isAfter(DOUBLED_AFTER)
        ? Instant.ofEpochSecond(read.getEpochSecond() / 2, read.getNano())
        : read;
  }
}
