package io.flightsql.spark.read;

import io.flightsql.spark.client.PlannedEndpoint;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.SessionState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.read.InputPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition of a read, in one of two forms. A server endpoint: one endpoint of the query the
 * driver ran ({@link PlannedEndpoint}: its ticket and the servers that can serve it, in the order
 * to try them). Or a client-side partition: a query of its own (the read's query with the
 * partition's WHERE condition), which the executor runs and reads every endpoint of. Both carry the
 * state of the driver's session (bearer token, cookies), never printed. Built on the driver,
 * Serializable, read on an executor.
 */
final class FlightSqlInputPartition implements InputPartition {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlInputPartition.class);

  private final int index;

  /** The server endpoint; null for a client-side partition. */
  private final PlannedEndpoint endpoint;

  /**
   * The endpoints of the same query read after {@link #endpoint}, in order, by the same reader:
   * empty but for an aggregate without GROUP BY, whose one row only a reader of all can check.
   */
  private final List<PlannedEndpoint> following;

  /** The query a client-side partition runs; null for a server endpoint. */
  private final String query;

  private final FlightUri server;
  private final SessionState session;

  /** The Spark action the endpoint was planned for ({@code spark.sql.execution.id}), or null. */
  private final String action;

  private FlightSqlInputPartition(
      int index,
      PlannedEndpoint endpoint,
      List<PlannedEndpoint> following,
      String query,
      FlightUri server,
      SessionState session,
      String action) {
    this.index = index;
    this.endpoint = endpoint;
    this.following = Collections.unmodifiableList(new ArrayList<>(following));
    this.query = query;
    this.server = server;
    this.session = session;
    this.action = action;
  }

  /**
   * A server endpoint, read with the driver's session {@code session}, planned for Spark action
   * {@code action} (null outside any).
   */
  static FlightSqlInputPartition endpoint(
      PlannedEndpoint endpoint, SessionState session, String action) {
    return new FlightSqlInputPartition(
        endpoint.index(),
        endpoint,
        Collections.emptyList(),
        null,
        endpoint.targets().get(0),
        session,
        action);
  }

  /**
   * The server endpoints of one query (at least one), read one after the other by one reader, with
   * the driver's session {@code session}, planned for Spark action {@code action} (null outside
   * any).
   */
  static FlightSqlInputPartition endpoints(
      List<PlannedEndpoint> endpoints, SessionState session, String action) {
    PlannedEndpoint first = endpoints.get(0);
    return new FlightSqlInputPartition(
        0,
        first,
        endpoints.subList(1, endpoints.size()),
        null,
        first.targets().get(0),
        session,
        action);
  }

  /** A client-side partition that runs {@code query} on {@code server}. */
  static FlightSqlInputPartition query(
      int index, String query, FlightUri server, SessionState session) {
    return new FlightSqlInputPartition(
        index, null, Collections.emptyList(), query, server, session, null);
  }

  int index() {
    return index;
  }

  /** Whether this partition runs a query of its own rather than reading one server endpoint. */
  boolean isQuery() {
    return endpoint == null;
  }

  /** The server endpoint; only when not {@link #isQuery()}. */
  PlannedEndpoint endpoint() {
    return endpoint;
  }

  /** The endpoints read after {@link #endpoint()}, in order; empty for most partitions. */
  List<PlannedEndpoint> following() {
    return following;
  }

  /**
   * The server endpoint as a task of Spark action {@code taskAction} (null for a job of no action)
   * reads it: the one endpoint of a plan made for another action (an earlier action on the same
   * DataFrame, whose physical plan Spark reuses, or an EXPLAIN) is planned again, so that the task
   * reads the rows of its own action. An endpoint of several is read as planned: its partitions
   * cannot be planned again one by one (see docs/pushdown.md).
   */
  PlannedEndpoint endpointFor(String taskAction) {
    // A job of no action (one over df.rdd, which Spark 4 plans inside an action of its own) reads
    // the plan it was given, as an RDD does.
    boolean otherAction = taskAction != null && !taskAction.equals(action);
    if (otherAction && endpoint.endpointCount() == 1) {
      LOG.info(
          "Partition {} was planned for Spark action {} and is read by action {}: its query is"
              + " planned again",
          index,
          action,
          taskAction);
      return endpoint.plannedAgain();
    }
    return endpoint;
  }

  /** The partition's query, or the query whose endpoint this is. */
  String query() {
    return isQuery() ? query : endpoint.query();
  }

  /** The Spark action the endpoint was planned for, or null. */
  String action() {
    return action;
  }

  /** The driver session's token and cookies (secrets), which the reader sends too. */
  SessionState session() {
    return session;
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
    for (FlightUri target : endpoint.targets()) {
      hosts.add(target.host());
    }
    for (PlannedEndpoint next : following) {
      for (FlightUri target : next.targets()) {
        hosts.add(target.host());
      }
    }
    return hosts.toArray(new String[0]);
  }

  @Override
  public String toString() {
    return "FlightSqlInputPartition{index="
        + index
        + (isQuery() ? ", query=" + query + " on " + server : ", " + endpoint)
        + (following.isEmpty() ? "" : ", then " + following)
        + "}";
  }
}
