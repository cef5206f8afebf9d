package io.flightsql.spark.read;

import io.flightsql.spark.client.transport.EndpointExpiration;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.SessionState;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One partition of a read, in one of two forms. A server endpoint: its ticket and the servers that
 * can serve it, in the order to try them, from the query the driver ran. Or a client-side
 * partition: a query of its own (the read's query with the partition's WHERE condition), which the
 * executor runs and reads every endpoint of. Both carry the state of the driver's session (bearer
 * token, cookies), never printed. Built on the driver, Serializable, read on an executor.
 */
final class FlightSqlInputPartition implements InputPartition {
  private static final long serialVersionUID = 1L;

  private final int index;
  private final int partitionCount;
  private final byte[] ticket;
  private final ArrayList<FlightUri> targets;
  private final String query;
  private final SessionState session;
  private final long plannedAtMillis;

  /**
   * Whether running the query again gives the same endpoints with the same rows: the server said
   * its endpoints are in the result's order (FlightInfo.ordered) and the query orders its rows.
   */
  private final boolean reproducible;

  /** The endpoint as the server sent it (for RenewFlightEndpoint), when it has an expiration. */
  private final byte[] expiringEndpoint;

  private final long expiresAtMillis;

  private FlightSqlInputPartition(
      int index,
      int partitionCount,
      FlightEndpoint endpoint,
      List<FlightUri> targets,
      String query,
      SessionState session,
      long plannedAtMillis,
      boolean reproducible) {
    this.reproducible = reproducible;
    this.index = index;
    this.partitionCount = partitionCount;
    this.ticket = endpoint == null ? null : endpoint.getTicket().getBytes().clone();
    this.targets = new ArrayList<>(targets);
    this.query = query;
    this.session = session;
    this.plannedAtMillis = plannedAtMillis;
    this.expiresAtMillis =
        endpoint == null
            ? 0
            : EndpointExpiration.of(endpoint).map(Instant::toEpochMilli).orElse(0L);
    this.expiringEndpoint = expiresAtMillis == 0 ? null : bytes(endpoint.serialize());
  }

  /**
   * A server endpoint, one of {@code endpointCount} of {@code query} planned at {@code
   * plannedAtMillis}, which a reader may run again when its ticket is spent or expired, where the
   * query has one endpoint or is {@code reproducible} (see {@link #reproducible()}).
   */
  static FlightSqlInputPartition endpoint(
      int index,
      int endpointCount,
      FlightEndpoint endpoint,
      List<FlightUri> targets,
      String query,
      SessionState session,
      long plannedAtMillis,
      boolean reproducible) {
    return new FlightSqlInputPartition(
        index, endpointCount, endpoint, targets, query, session, plannedAtMillis, reproducible);
  }

  /** A client-side partition that runs {@code query} on {@code server}. */
  static FlightSqlInputPartition query(
      int index, int partitionCount, String query, FlightUri server, SessionState session) {
    return new FlightSqlInputPartition(
        index,
        partitionCount,
        null,
        List.of(server),
        query,
        session,
        System.currentTimeMillis(),
        false);
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.get(out);
    return out;
  }

  /** When the driver planned the query, in epoch milliseconds. */
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

  int index() {
    return index;
  }

  /**
   * Whether the query run again gives the same endpoints with the same rows: the server said its
   * endpoints follow the result's order (FlightInfo.ordered) and the query ends with ORDER BY.
   */
  boolean reproducible() {
    return reproducible;
  }

  /**
   * How many partitions the read was planned with: for a server endpoint, how many endpoints the
   * query had.
   */
  int endpointCount() {
    return partitionCount;
  }

  /** Whether this partition runs a query of its own rather than reading one server endpoint. */
  boolean isQuery() {
    return ticket == null;
  }

  /** The partition's query, or the query whose endpoint this is. */
  String query() {
    return query;
  }

  /** The driver session's token and cookies (secrets), which the reader sends too. */
  SessionState session() {
    return session;
  }

  /** The endpoint's ticket; only when not {@link #isQuery()}. */
  byte[] ticket() {
    return ticket.clone();
  }

  /** The servers to try for the endpoint; for a query, the server it runs on. */
  List<FlightUri> targets() {
    return targets;
  }

  /**
   * The hosts of an endpoint's servers. None for a query: where its endpoints are is known only
   * once the executor has run it.
   */
  @Override
  public String[] preferredLocations() {
    if (isQuery()) {
      return new String[0];
    }
    Set<String> hosts = new LinkedHashSet<>();
    for (FlightUri target : targets) {
      hosts.add(target.host());
    }
    return hosts.toArray(new String[0]);
  }

  @Override
  public String toString() {
    return "FlightSqlInputPartition{index="
        + index
        + (isQuery() ? ", query=" + query : ", targets=" + targets)
        + "}";
  }
}
