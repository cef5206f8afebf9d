package io.flightsql.spark;

import io.flightsql.spark.client.FlightUri;
import io.flightsql.spark.client.SessionState;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One FlightEndpoint: its ticket, the servers that can serve it in the order to try them, and the
 * state of the driver's session that issued it (bearer token, cookies), never printed. Built on
 * the driver, Serializable, read on an executor.
 */
final class FlightSqlInputPartition implements InputPartition {
  private static final long serialVersionUID = 1L;

  private final int index;
  private final int endpointCount;
  private final byte[] ticket;
  private final ArrayList<FlightUri> targets;
  private final String query;
  private final SessionState session;

  FlightSqlInputPartition(
      int index,
      int endpointCount,
      byte[] ticket,
      List<FlightUri> targets,
      String query,
      SessionState session) {
    this.index = index;
    this.endpointCount = endpointCount;
    this.ticket = ticket.clone();
    this.targets = new ArrayList<>(targets);
    this.query = query;
    this.session = session;
  }

  /** The SQL the driver sent, for running it again when a single-endpoint ticket is spent. */
  String query() {
    return query;
  }

  /** The driver session's token and cookies (secrets), which the reader sends too. */
  SessionState session() {
    return session;
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
