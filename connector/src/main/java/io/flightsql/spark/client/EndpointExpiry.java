package io.flightsql.spark.client;

import io.flightsql.spark.client.transport.EndpointExpiration;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightStatusCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Honours an endpoint's {@code expiration_time} when its partition is read: an endpoint read after
 * it, or less than {@link #RENEW_MARGIN_MILLIS} before it, is renewed (RenewFlightEndpoint) where
 * the server can; else, once expired, the query is run again when the plan had one endpoint (the
 * whole result is then that endpoint), and otherwise the read fails saying what expired and how
 * long after planning it was read. An endpoint near its expiration that cannot be renewed is read
 * as it is. Decided by the {@link EndpointCursor} before it opens the endpoint.
 */
final class EndpointExpiry {
  private static final Logger LOG = LoggerFactory.getLogger(EndpointExpiry.class);

  /**
   * How close to its expiration an endpoint is renewed rather than read as it is: enough for the
   * DoGet to reach the server, and for some difference between its clock and the executor's.
   */
  static final long RENEW_MARGIN_MILLIS = 10_000;

  /** What to read: the endpoint as planned, another (renewed) one, or the query run again. */
  enum Action {
    AS_PLANNED,
    RENEWED,
    RUN_AGAIN
  }

  /** The decision, with the renewed endpoint when it is {@link Action#RENEWED}. */
  static final class Decision {
    private final Action action;
    private final FlightEndpoint renewed;

    Decision(Action action, FlightEndpoint renewed) {
      this.action = action;
      this.renewed = renewed;
    }

    Action action() {
      return action;
    }

    FlightEndpoint renewed() {
      return renewed;
    }
  }

  private EndpointExpiry() {}

  /**
   * @throws FlightSqlConnectorException when the endpoint expired, cannot be renewed and the query
   *     had several endpoints
   */
  static Decision decide(PlannedEndpoint endpoint, FlightSqlSession session, long now) {
    long expiresAt = endpoint.expiresAtMillis();
    if (expiresAt == 0 || now < expiresAt - RENEW_MARGIN_MILLIS) {
      return new Decision(Action.AS_PLANNED, null);
    }
    boolean expired = now >= expiresAt;
    RuntimeException renewFailure = null;
    try {
      Optional<FlightEndpoint> renewed = session.renew(endpoint.expiringEndpoint());
      if (renewed.isPresent()) {
        LOG.info(
            "Partition {}: endpoint {} at {} renewed (RenewFlightEndpoint); it now expires at {}",
            endpoint.index(),
            expired ? "expired" : "expiring",
            Instant.ofEpochMilli(expiresAt),
            EndpointExpiration.of(renewed.get()).map(Instant::toString).orElse("no time"));
        return new Decision(Action.RENEWED, renewed.get());
      }
    } catch (FlightSqlConnectorException e) {
      renewFailure = e;
    }
    String why =
        renewFailure == null
            ? "the server does not renew endpoints (RenewFlightEndpoint is UNIMPLEMENTED)"
            : "renewing it failed (" + renewFailure.getMessage() + ")";
    if (!expired) {
      LOG.info(
          "Partition {}: endpoint expires at {} and {}; reading it as it is",
          endpoint.index(),
          Instant.ofEpochMilli(expiresAt),
          why);
      return new Decision(Action.AS_PLANNED, null);
    }
    if (endpoint.endpointCount() == 1) {
      LOG.info(
          "Partition {}: endpoint expired at {} and {}; running the query again",
          endpoint.index(),
          Instant.ofEpochMilli(expiresAt),
          why);
      return new Decision(Action.RUN_AGAIN, null);
    }
    FlightSqlConnectorException failure = expired(endpoint, now, why);
    if (renewFailure != null) {
      failure.addSuppressed(renewFailure);
    }
    throw failure;
  }

  /** The error of an endpoint read after its expiration, which nothing can bring back. */
  static FlightSqlConnectorException expired(PlannedEndpoint endpoint, long now, String why) {
    String detail =
        "the endpoint of partition "
            + endpoint.index()
            + " (one of "
            + endpoint.endpointCount()
            + ") expired at "
            + Instant.ofEpochMilli(endpoint.expiresAtMillis())
            + ", "
            + seconds(endpoint.expiresAtMillis() - endpoint.plannedAtMillis())
            + " after planning, and is read "
            + seconds(now - endpoint.plannedAtMillis())
            + " after planning";
    return FlightErrors.failure(
        "DoGet",
        endpoint.targets().get(0),
        FlightStatusCode.NOT_FOUND,
        detail
            + "; "
            + why
            + ", and a query with several endpoints cannot be run again for one of them",
        "Read the data sooner after planning it (an action on a Dataset planned earlier reuses"
            + " its endpoints), or load the DataFrame again. Query: "
            + endpoint.query(),
        null);
  }

  private static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }
}
