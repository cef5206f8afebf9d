package io.flightsql.spark.read;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.PlannedEndpoint;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.SessionState;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.metrics.ActionReads;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.types.ArrowToSpark;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read's query as the server planned it (PollFlightInfo or GetFlightInfo): the SQL sent, the
 * endpoints of its FlightInfo (each ticket with the servers to try), the figures the server gave
 * with it ({@code total_records}, {@code total_bytes}), the token and cookies of the session that
 * planned it (executors present them with its tickets, which a server may keep to that session) and
 * when it was planned. Immutable; made and used on the driver. Its partitions are made once, by the
 * one owner of a scan's planned query ({@link ScanPlan}): a server may let each ticket be read only
 * once.
 */
final class PlannedQuery {
  private static final Logger LOG = LoggerFactory.getLogger(PlannedQuery.class);

  private final String sql;
  private final FlightInfo info;
  private final List<PlannedEndpoint> endpoints;
  private final SessionState state;
  private final long plannedAtMillis;
  private final String action;
  private final long rows;
  private final long bytes;

  private PlannedQuery(
      String sql,
      FlightInfo info,
      List<PlannedEndpoint> endpoints,
      SessionState state,
      long plannedAtMillis,
      long rows,
      long bytes) {
    this.sql = sql;
    this.info = info;
    this.endpoints = Collections.unmodifiableList(new ArrayList<>(endpoints));
    this.state = state;
    this.plannedAtMillis = plannedAtMillis;
    this.action = ActionReads.currentAction();
    this.rows = rows;
    this.bytes = bytes;
  }

  /**
   * Plans {@code query} within option {@code queryTimeout}, cancelled with the Spark job that waits
   * for it. A query the connector composed is checked against {@code schema}, the columns the scan
   * promised Spark, where the server announces its result's schema.
   *
   * @throws FlightSqlConnectorException naming the call and the server when planning fails
   */
  static PlannedQuery plan(FlightSqlReadConfig config, PushedQuery query, StructType schema) {
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "plan")) {
      String sql = sql(config, query, session);
      FlightInfo info =
          session.plan(
              sql, config.queryTimeout().orElse(null), SparkPlanningCancellation.current());
      long plannedAt = System.currentTimeMillis();
      SessionState state = session.state();
      if (query.composed()) {
        checkSchema(info.getSchemaOptional(), sql, schema, config);
      }
      List<FlightEndpoint> given = info.getEndpoints();
      List<PlannedEndpoint> endpoints = new ArrayList<>();
      for (int i = 0; i < given.size(); i++) {
        FlightEndpoint endpoint = given.get(i);
        endpoints.add(
            PlannedEndpoint.of(
                i, given.size(), endpoint, session.targets(endpoint), sql, plannedAt));
      }
      LOG.info(
          "Query on {} planned as {} endpoint(s){}: {}",
          config.uri(),
          endpoints.size(),
          info.getRecords() >= 0 ? ", " + info.getRecords() + " rows" : "",
          sql);
      return new PlannedQuery(
          sql, info, endpoints, state, plannedAt, info.getRecords(), info.getBytes());
    }
  }

  /**
   * The SQL {@code session} sends for {@code query}: a query the user wrote is sent as written, a
   * {@code dbtable} qualified by options {@code catalog} and {@code schema} where the session could
   * not take them as its defaults.
   */
  static String sql(FlightSqlReadConfig config, PushedQuery query, FlightSqlSession session) {
    return query.composed() ? query.sql() : sourceSql(config, session);
  }

  /** The SQL of the read's source, as its schema inference sent it. */
  private static String sourceSql(FlightSqlReadConfig config, FlightSqlSession session) {
    return SourceQuery.sql(
        config,
        session.sessionHasDefaults(),
        () -> Dialects.resolve(config.dialect(), session.capabilities()).dialect());
  }

  String sql() {
    return sql;
  }

  /** The rows the server said the result has ({@code total_records}); empty when it did not. */
  OptionalLong rows() {
    return rows >= 0 ? OptionalLong.of(rows) : OptionalLong.empty();
  }

  /** The bytes the server said the result has ({@code total_bytes}); empty when it did not. */
  OptionalLong bytes() {
    return bytes >= 0 ? OptionalLong.of(bytes) : OptionalLong.empty();
  }

  /** How many endpoints, so partitions, the plan has. */
  int endpointCount() {
    return endpoints.size();
  }

  /**
   * Asks the server to cancel the plan, which no one will read (CancelFlightInfo), in the session
   * that planned it; failures are logged, not raised.
   */
  void cancel(FlightSqlReadConfig config) {
    try (FlightSqlSession session =
        FlightSqlSession.open(config.connection(), "plan-cancel", state)) {
      session.cancelPlanned(info);
    } catch (RuntimeException e) {
      LOG.info("Cancelling an unread plan on {} failed: {}", config.uri(), e.getMessage());
    }
  }

  /** How long ago the query was planned. */
  long ageMillis() {
    return System.currentTimeMillis() - plannedAtMillis;
  }

  /** One input partition per endpoint, read with the planning session's token and cookies. */
  InputPartition[] partitions() {
    InputPartition[] partitions = new InputPartition[endpoints.size()];
    for (int i = 0; i < partitions.length; i++) {
      partitions[i] = FlightSqlInputPartition.endpoint(endpoints.get(i), state, action);
    }
    return partitions;
  }

  /**
   * Fails planning when the server announces, for the query the connector composed, columns of
   * other types than the scan promised Spark. Readers check each stream too, for servers that
   * announce nothing here.
   */
  private static void checkSchema(
      Optional<Schema> announced, String sql, StructType schema, FlightSqlReadConfig config) {
    if (!announced.isPresent() || announced.get().getFields().isEmpty()) {
      return;
    }
    StructType actual;
    try {
      actual = ArrowToSpark.toSparkSchema(announced.get(), config.typeOptions());
    } catch (RuntimeException e) {
      throw mismatch(sql, e.getMessage());
    }
    if (actual.size() != schema.size()) {
      throw mismatch(
          sql, "it has " + actual.size() + " columns where " + schema.size() + " were expected");
    }
    for (int i = 0; i < schema.size(); i++) {
      DataType expected = schema.fields()[i].dataType();
      DataType got = actual.fields()[i].dataType();
      if (!expected.equals(got)) {
        throw mismatch(
            sql,
            "column "
                + (i + 1)
                + " ('"
                + actual.fields()[i].name()
                + "') is "
                + got.simpleString()
                + " where "
                + expected.simpleString()
                + " was expected");
      }
    }
  }

  private static FlightSqlConnectorException mismatch(String sql, String detail) {
    return FlightErrors.problem(
        "The server's result for the pushed-down query does not match the schema"
            + " Spark expects: "
            + detail
            + ". Query: "
            + sql
            + ". Set options 'pushDownPredicate', 'pushDownAggregate', 'pushDownLimit',"
            + " 'pushDownOffset', 'pushDownTopN' and 'pushDownJoin' to false, or choose another"
            + " 'dialect'.",
        "UNKNOWN",
        detail);
  }
}
