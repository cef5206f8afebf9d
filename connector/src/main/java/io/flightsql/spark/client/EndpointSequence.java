package io.flightsql.spark.client;

import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.InsecureLocationException;
import io.flightsql.spark.client.transport.UntrustedLocationException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which tickets an {@link EndpointCursor} reads, in order, and how each is opened: one endpoint
 * planned elsewhere (renewed, or its query run again, where it expired: {@link EndpointExpiry}), or
 * every endpoint of a query run here, in the server's order.
 *
 * <p>A planned ticket the server refuses (a server that reads each ticket once, and a partition
 * Spark reads a second time) is replaced by running the query again only where that provably gives
 * the same rows: where the query had one endpoint, whose rows were the whole result, as the new
 * plan's endpoints are together. A query of several endpoints may split its rows differently when
 * run again (ties in an ORDER BY, rows changed in between), which would lose rows or read some
 * twice, so that read fails instead, saying what to do. Not thread-safe, like its cursor.
 */
final class EndpointSequence {
  private static final Logger LOG = LoggerFactory.getLogger(EndpointSequence.class);

  private final FlightSqlSession session;
  private final int partition;

  /** The endpoint planned elsewhere, or null for a query run here. */
  private final PlannedEndpoint planned;

  private final String query;
  private final Duration queryTimeout;
  private final PlanningCancellation cancellation;

  /** The endpoints of the query run here, not reached yet. */
  private final Deque<FlightEndpoint> pending = new ArrayDeque<>();

  private boolean started;

  /**
   * Whether the current ticket is the planned one (or its renewal), not one of a query run here.
   */
  private boolean readingPlanned;

  /** Whether the planned endpoint expired unread, so that its query runs again when opened. */
  private boolean mustRunAgain;

  /** Whether the query ran here again in place of the planned endpoint. */
  private boolean ranAgain;

  private int queryEndpoints;
  private int endpointNumber;

  private List<FlightUri> targets;
  private Ticket ticket;

  EndpointSequence(
      FlightSqlSession session,
      int partition,
      PlannedEndpoint planned,
      String query,
      Duration queryTimeout,
      PlanningCancellation cancellation) {
    this.session = session;
    this.partition = partition;
    this.planned = planned;
    this.query = query;
    this.queryTimeout = queryTimeout;
    this.cancellation = cancellation;
  }

  /**
   * Moves to the first endpoint (planning the query, or deciding what an expiring planned endpoint
   * needs), then to each next one; false when none is left.
   */
  boolean advance() {
    if (started) {
      return nextPending();
    }
    started = true;
    if (planned == null) {
      plan();
      return nextPending();
    }
    readingPlanned = true;
    targets = planned.targets();
    ticket = planned.ticket();
    if (planned.planAgain()) {
      mustRunAgain = true;
      return true;
    }
    EndpointExpiry.Decision expiry =
        EndpointExpiry.decide(planned, session, System.currentTimeMillis());
    if (expiry.action() == EndpointExpiry.Action.RUN_AGAIN) {
      mustRunAgain = true;
    } else if (expiry.action() == EndpointExpiry.Action.RENEWED) {
      targets = session.targets(expiry.renewed());
      ticket = expiry.renewed().getTicket();
    }
    return true;
  }

  /** The server tried first for the current endpoint. */
  FlightUri target() {
    return targets.get(0);
  }

  /** Tries the current endpoint's other locations first from now on, and {@code failed} last. */
  void tryLast(FlightUri failed) {
    List<FlightUri> order = new ArrayList<>(targets);
    if (order.remove(failed)) {
      order.add(failed);
    }
    targets = order;
  }

  /**
   * Opens the current endpoint's stream from its locations in order; null where the query, run
   * again in place of the planned endpoint, has no endpoint. The caller closes the stream.
   */
  FlightStream open() {
    if (mustRunAgain) {
      return runAgain(null);
    }
    if (!readingPlanned) {
      return session.stream(targets, ticket);
    }
    try {
      return session.stream(targets, ticket);
    } catch (FlightSqlConnectorException e) {
      if (e instanceof InsecureLocationException
          || e instanceof UntrustedLocationException
          || FlightErrors.isAboutTheCall(e)) {
        throw e;
      }
      return afterRefusal(e);
    }
  }

  /** {@code partition 3 (endpoint 4 of 8)}, for messages. */
  String describe() {
    StringBuilder out = new StringBuilder("partition ").append(partition).append(" (endpoint ");
    if (planned != null && !ranAgain) {
      out.append(planned.index() + 1).append(" of ").append(planned.endpointCount());
    } else {
      out.append(endpointNumber).append(" of ").append(queryEndpoints).append(" of its query");
      out.append(ranAgain ? " run again" : "");
    }
    return out.append(')').toString();
  }

  private void plan() {
    FlightInfo info = session.plan(query, queryTimeout, cancellation);
    pending.addAll(info.getEndpoints());
    queryEndpoints = pending.size();
    LOG.debug("Partition {}: its query has {} endpoint(s)", partition, queryEndpoints);
  }

  private boolean nextPending() {
    FlightEndpoint endpoint = pending.poll();
    if (endpoint == null) {
      return false;
    }
    targets = session.targets(endpoint);
    ticket = endpoint.getTicket();
    endpointNumber++;
    return true;
  }

  /**
   * After the server refused the planned ticket. Flight leaves it to each server whether a ticket
   * can be read twice, and some (Sail, Deephaven, Arrow's Java example) drop it after its first
   * read; Spark reads a partition again when it retries a task, runs a second action on the same
   * planned Dataset, or samples the input of a sort.
   */
  private FlightStream afterRefusal(FlightSqlConnectorException refusal) {
    if (planned.endpointCount() == 1) {
      return runAgain(refusal);
    }
    long now = System.currentTimeMillis();
    if (planned.expiresAtMillis() > 0 && now >= planned.expiresAtMillis()) {
      FlightSqlConnectorException expired =
          EndpointExpiry.expired(planned, now, "the server refused its ticket");
      expired.addSuppressed(refusal);
      throw expired;
    }
    throw new FlightSqlConnectorException(
        refusal.getMessage()
            + ". If Spark read this partition before (a retried task, a second action on the"
            + " same DataFrame, or the sampling pass of a sort), the server may allow each ticket"
            + " to be read only once, and the query's "
            + planned.endpointCount()
            + " endpoints are not planned again: run again, the query may split its rows"
            + " differently among its endpoints (ties in an ORDER BY, rows changed since), and"
            + " rows would be lost or read twice. cache() the DataFrame after reading it, split"
            + " the read on the client (options 'partitionColumn' or 'predicates', whose"
            + " partitions each run their own query), or read it as one endpoint",
        refusal.statusCode(),
        refusal.serverMessage(),
        refusal.getCause());
  }

  /**
   * Runs the query of a one-endpoint plan again and opens the first endpoint of the new plan, whose
   * endpoints are then read in turn: the planned endpoint's rows were the whole result, and so are
   * the new endpoints' together. The cursor has handed out no batch yet, so nothing is read twice.
   *
   * @param refusal the server's refusal of the planned ticket; null when it expired unread
   */
  private FlightStream runAgain(FlightSqlConnectorException refusal) {
    if (planned.endpointCount() != 1) {
      throw new IllegalStateException("A query of several endpoints is never run again");
    }
    LOG.info(
        "Partition {}: {}; running its query again",
        partition,
        refusal == null
            ? (planned.planAgain()
                ? "its plan was made for another Spark action"
                : "the endpoint expired")
            : "the server refused its ticket (" + refusal.getMessage() + ")");
    if (refusal == null && planned.planAgain()) {
      // The plan made for another action is not read: end it on the server, as the driver ends a
      // plan no job reads.
      session.release(targets, ticket);
    }
    try {
      plan();
    } catch (FlightSqlConnectorException e) {
      if (refusal != null) {
        e.addSuppressed(refusal);
      }
      throw e;
    }
    mustRunAgain = false;
    readingPlanned = false;
    ranAgain = true;
    return nextPending() ? session.stream(targets, ticket) : null;
  }
}
