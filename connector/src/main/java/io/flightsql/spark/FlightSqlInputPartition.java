package io.flightsql.spark;

import io.flightsql.spark.client.FlightUri;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One partition of a read, in one of two forms. A server endpoint: its ticket and the servers
 * that can serve it, in the order to try them, from the query the driver ran. Or a client-side
 * partition: a query of its own (the read's query with the partition's WHERE clause), which the
 * executor runs and reads every endpoint of. Built on the driver, Serializable, read on an
 * executor.
 */
final class FlightSqlInputPartition implements InputPartition {
  private static final long serialVersionUID = 1L;

  private final int index;
  private final int partitionCount;
  private final byte[] ticket;
  private final ArrayList<FlightUri> targets;
  private final String query;

  private FlightSqlInputPartition(
      int index, int partitionCount, byte[] ticket, List<FlightUri> targets, String query) {
    this.index = index;
    this.partitionCount = partitionCount;
    this.ticket = ticket;
    this.targets = new ArrayList<>(targets);
    this.query = query;
  }

  /** A server endpoint, one of {@code endpointCount} of the query. */
  static FlightSqlInputPartition endpoint(
      int index, int endpointCount, byte[] ticket, List<FlightUri> targets) {
    return new FlightSqlInputPartition(index, endpointCount, ticket.clone(), targets, null);
  }

  /** A client-side partition that runs {@code query} on {@code server}. */
  static FlightSqlInputPartition query(int index, int partitionCount, String query, FlightUri server) {
    return new FlightSqlInputPartition(index, partitionCount, null, List.of(server), query);
  }

  int index() {
    return index;
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
    return query != null;
  }

  /** The partition's query; only when {@link #isQuery()}. */
  String query() {
    return query;
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
