package io.flightsql.spark.client;

import io.flightsql.spark.client.transport.EndpointExpiration;
import io.flightsql.spark.client.transport.FlightUri;
import java.io.IOException;
import java.io.Serializable;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.Ticket;

/**
 * One endpoint of a planned query, as an {@link EndpointCursor} needs it to read the endpoint
 * elsewhere and later: its ticket, the servers to try in order, the query and how many endpoints it
 * had, when it was planned and when the endpoint expires. Immutable and Serializable: made where
 * the query was planned and read where the endpoint is read. Flight's own endpoint is not
 * Serializable, so an endpoint that expires is kept in its protobuf form, for RenewFlightEndpoint.
 */
public final class PlannedEndpoint implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int index;
  private final int endpointCount;
  private final byte[] ticket;
  private final ArrayList<FlightUri> targets;
  private final String query;
  private final long plannedAtMillis;
  private final long expiresAtMillis;

  /** The endpoint as the server sent it; only when it expires. */
  private final byte[] expiringEndpoint;

  /** Whether its query is to be planned again rather than its ticket read. */
  private final boolean planAgain;

  private PlannedEndpoint(PlannedEndpoint planned, boolean planAgain) {
    this.index = planned.index;
    this.endpointCount = planned.endpointCount;
    this.ticket = planned.ticket;
    this.targets = planned.targets;
    this.query = planned.query;
    this.plannedAtMillis = planned.plannedAtMillis;
    this.expiresAtMillis = planned.expiresAtMillis;
    this.expiringEndpoint = planned.expiringEndpoint;
    this.planAgain = planAgain;
  }

  private PlannedEndpoint(
      int index,
      int endpointCount,
      FlightEndpoint endpoint,
      List<FlightUri> targets,
      String query,
      long plannedAtMillis) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("An endpoint needs a server to be read from");
    }
    this.index = index;
    this.endpointCount = endpointCount;
    this.ticket = endpoint.getTicket().getBytes().clone();
    this.targets = new ArrayList<>(targets);
    this.query = query;
    this.plannedAtMillis = plannedAtMillis;
    this.expiresAtMillis = EndpointExpiration.of(endpoint).map(Instant::toEpochMilli).orElse(0L);
    this.expiringEndpoint = expiresAtMillis == 0 ? null : bytes(endpoint.serialize());
    this.planAgain = false;
  }

  /**
   * This endpoint, its query to be planned again when it is read rather than its ticket read: the
   * one endpoint of a plan made for an earlier Spark action (or an EXPLAIN), whose ticket may hold
   * that action's rows, or have been read or cancelled since.
   */
  public PlannedEndpoint plannedAgain() {
    if (endpointCount != 1) {
      throw new IllegalStateException("Only the one endpoint of a plan is planned again");
    }
    return new PlannedEndpoint(this, true);
  }

  /** Whether its query is planned again when it is read ({@link #plannedAgain()}). */
  public boolean planAgain() {
    return planAgain;
  }

  /**
   * Endpoint {@code index} (from 0) of the {@code endpointCount} of {@code query}, planned at
   * {@code plannedAtMillis}, to be read from {@code targets} in order.
   */
  public static PlannedEndpoint of(
      int index,
      int endpointCount,
      FlightEndpoint endpoint,
      List<FlightUri> targets,
      String query,
      long plannedAtMillis) {
    return new PlannedEndpoint(index, endpointCount, endpoint, targets, query, plannedAtMillis);
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.get(out);
    return out;
  }

  /** Which endpoint of its query this is, from 0. */
  public int index() {
    return index;
  }

  /** How many endpoints the query had when it was planned. */
  public int endpointCount() {
    return endpointCount;
  }

  Ticket ticket() {
    return new Ticket(ticket.clone());
  }

  /** The servers that can serve the endpoint, in the order to try them. */
  public List<FlightUri> targets() {
    return Collections.unmodifiableList(targets);
  }

  /** The query whose endpoint this is. */
  public String query() {
    return query;
  }

  /** When the query was planned, in epoch milliseconds. */
  long plannedAtMillis() {
    return plannedAtMillis;
  }

  /** When the endpoint's ticket expires (its expiration_time), in epoch milliseconds; 0 never. */
  long expiresAtMillis() {
    return expiresAtMillis;
  }

  /** The endpoint as the server sent it; only when {@link #expiresAtMillis()} is set. */
  FlightEndpoint expiringEndpoint() {
    try {
      return FlightEndpoint.deserialize(ByteBuffer.wrap(expiringEndpoint));
    } catch (IOException | URISyntaxException e) {
      throw new IllegalStateException("The endpoint serialized at planning cannot be read", e);
    }
  }

  @Override
  public String toString() {
    return "endpoint " + (index + 1) + " of " + endpointCount + " at " + targets;
  }
}
