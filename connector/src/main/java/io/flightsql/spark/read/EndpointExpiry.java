package io.flightsql.spark.read;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.transport.EndpointExpiration;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import org.apache.arrow.flight.FlightEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Honours an endpoint's {@code expiration_time} when its partition is read: an endpoint read after
 * it, or less than {@link #RENEW_MARGIN_MILLIS} before it, is renewed (RenewFlightEndpoint) where
 * the server can; else, once expired, the query is run again when the plan had one endpoint (the
 * whole result is then that endpoint), and otherwise the read fails saying what expired and how
 * long after planning it was read. An endpoint near its expiration that cannot be renewed is read
 * as it is. Runs on executors, in the partition's reader.
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
  static Decision decide(FlightSqlInputPartition partition, FlightSqlSession session, long now) {
    long expiresAt = partition.expiresAtMillis();
    if (expiresAt == 0 || now < expiresAt - RENEW_MARGIN_MILLIS) {
      return new Decision(Action.AS_PLANNED, null);
    }
    boolean expired = now >= expiresAt;
    RuntimeException renewFailure = null;
    try {
      Optional<FlightEndpoint> renewed = session.renew(partition.expiringEndpoint());
      if (renewed.isPresent()) {
        LOG.info(
            "Partition {}: endpoint {} at {} renewed (RenewFlightEndpoint); it now expires at {}",
            partition.index(),
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
          partition.index(),
          Instant.ofEpochMilli(expiresAt),
          why);
      return new Decision(Action.AS_PLANNED, null);
    }
    if (partition.endpointCount() == 1) {
      LOG.info(
          "Partition {}: endpoint expired at {} and {}; running the query again",
          partition.index(),
          Instant.ofEpochMilli(expiresAt),
          why);
      return new Decision(Action.RUN_AGAIN, null);
    }
    FlightSqlConnectorException failure = expired(partition, now, why);
    if (renewFailure != null) {
      failure.addSuppressed(renewFailure);
    }
    throw failure;
  }

  /** The error of an endpoint read after its expiration, which nothing can bring back. */
  static FlightSqlConnectorException expired(
      FlightSqlInputPartition partition, long now, String why) {
    String detail =
        "the endpoint of partition "
            + partition.index()
            + " (one of "
            + partition.endpointCount()
            + ") expired at "
            + Instant.ofEpochMilli(partition.expiresAtMillis())
            + ", "
            + seconds(partition.expiresAtMillis() - partition.plannedAtMillis())
            + " after planning, and is read "
            + seconds(now - partition.plannedAtMillis())
            + " after planning";
    return new FlightSqlConnectorException(
        "[flightsql] DoGet failed for "
            + partition.targets().get(0)
            + ": NOT_FOUND: "
            + detail
            + "; "
            + why
            + ", and a query with several endpoints cannot be run again for one of them. Read"
            + " the data sooner after planning it (an action on a Dataset planned earlier reuses"
            + " its endpoints), or load the DataFrame again. Query: "
            + partition.query(),
        "NOT_FOUND",
        detail,
        null);
  }

  private static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }
}
