package io.flightsql.spark;

import io.flightsql.spark.client.FlightUri;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One FlightEndpoint: its ticket and the servers that can serve it, in the order to try them.
 * Built on the driver, Serializable, read on an executor.
 */
final class FlightSqlInputPartition implements InputPartition {
  private static final long serialVersionUID = 1L;

  private final int index;
  private final int endpointCount;
  private final byte[] ticket;
  private final ArrayList<FlightUri> targets;
  private final String query;

  /**
   * @param query the SQL whose endpoint this is, which a reader may run again when the ticket
   *     cannot be read (see FlightSqlPartitionReader)
   */
  FlightSqlInputPartition(
      int index, int endpointCount, byte[] ticket, List<FlightUri> targets, String query) {
    this.index = index;
    this.endpointCount = endpointCount;
    this.ticket = ticket.clone();
    this.targets = new ArrayList<>(targets);
    this.query = query;
  }

  /** The SQL the server ran to make this endpoint. */
  String query() {
    return query;
  }

  int index() {
    return index;
  }

  /** How many endpoints the query was planned with: this partition is one of them. */
  int endpointCount() {
    return endpointCount;
  }

  byte[] ticket() {
    return ticket.clone();
  }

  List<FlightUri> targets() {
    return targets;
  }

  @Override
  public String[] preferredLocations() {
    Set<String> hosts = new LinkedHashSet<>();
    for (FlightUri target : targets) {
      hosts.add(target.host());
    }
    return hosts.toArray(new String[0]);
  }

  @Override
  public String toString() {
    return "FlightSqlInputPartition{index=" + index + ", targets=" + targets + "}";
  }
}
