package io.flightsql.spark.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.SessionState;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cursor against the embedded server, without Spark: it reads a planned endpoint or every
 * endpoint of its own query, runs a one-endpoint query again for a ticket the server no longer
 * takes, and refuses to for a query of several endpoints. Every test ends with no Arrow allocator
 * open.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class EndpointCursorTest {
  /** Two endpoints per query, slices of a result computed once, each ticket read once. */
  @RegisterExtension
  static final EmbeddedServerExtension several =
      EmbeddedServerExtension.duckDb(
          server ->
              server
                  .port(0)
                  .lineitemRows(0)
                  .endpoints(2)
                  .batchRows(100)
                  .without("TicketReuse", "QueryPerEndpoint"));

  /** One endpoint per query, each ticket read once. */
  @RegisterExtension
  static final EmbeddedServerExtension one =
      EmbeddedServerExtension.duckDb(
          server ->
              server.port(0).lineitemRows(0).endpoints(1).batchRows(100).without("TicketReuse"));

  @BeforeAll
  static void ties() {
    for (DuckDbFlightSqlServer server : List.of(several.server(), one.server())) {
      server.execute("CREATE TABLE ties AS SELECT i % 100 AS k, i AS id FROM range(1000) r(i)");
    }
  }

  private static ConnectionSettings settings(DuckDbFlightSqlServer server) {
    return ConnectionSettings.of(FlightUri.parse(server.uri()));
  }

  /** A plan as the driver makes it: each endpoint, and the state of the session that planned. */
  private static final class Plan {
    final List<PlannedEndpoint> endpoints = new ArrayList<>();
    SessionState state;
  }

  private static Plan plan(DuckDbFlightSqlServer server, String sql) {
    Plan plan = new Plan();
    try (FlightSqlSession session = FlightSqlSession.open(settings(server), "plan")) {
      FlightInfo info = session.plan(sql, null, PlanningCancellation.NONE);
      List<FlightEndpoint> endpoints = info.getEndpoints();
      for (int i = 0; i < endpoints.size(); i++) {
        plan.endpoints.add(
            PlannedEndpoint.of(
                i,
                endpoints.size(),
                endpoints.get(i),
                session.targets(endpoints.get(i)),
                sql,
                System.currentTimeMillis()));
      }
      plan.state = session.state();
    }
    return plan;
  }

  private static EndpointCursor over(
      DuckDbFlightSqlServer server, Plan plan, PlannedEndpoint endpoint) {
    return EndpointCursor.overEndpoint(
        settings(server), plan.state, endpoint, null, PlanningCancellation.NONE);
  }

  /**
   * Every value of column {@code id} the cursor yields, read to its end, then the cursor closed.
   */
  private static List<Long> ids(EndpointCursor cursor) {
    List<Long> ids = new ArrayList<>();
    try (cursor) {
      while (cursor.next()) {
        VectorSchemaRoot root = cursor.root();
        BigIntVector column = (BigIntVector) root.getVector("id");
        for (int row = 0; row < root.getRowCount(); row++) {
          ids.add(column.get(row));
        }
      }
    }
    return ids;
  }

  private static List<Long> range(int count) {
    List<Long> all = new ArrayList<>();
    for (long i = 0; i < count; i++) {
      all.add(i);
    }
    return all;
  }

  private static List<Long> sorted(List<Long> ids) {
    List<Long> copy = new ArrayList<>(ids);
    Collections.sort(copy);
    return copy;
  }

  @Test
  void theEndpointsOfAPlanTogetherHoldEveryRowOnce() {
    Plan plan = plan(several.server(), "SELECT k, id FROM ties ORDER BY k");
    assertThat(plan.endpoints).hasSize(2);
    List<Long> all = new ArrayList<>();
    for (PlannedEndpoint endpoint : plan.endpoints) {
      List<Long> ids = ids(over(several.server(), plan, endpoint));
      assertThat(ids).hasSize(500);
      all.addAll(ids);
    }
    assertThat(sorted(all)).isEqualTo(range(1000));
  }

  @Test
  void aQueryOfItsOwnIsPlannedAndEachOfItsEndpointsReadInTurn() {
    EndpointCursor cursor =
        EndpointCursor.overQuery(
            settings(several.server()),
            SessionState.empty(),
            3,
            "SELECT id FROM ties WHERE id < 600",
            null,
            PlanningCancellation.NONE);
    List<Long> ids = new ArrayList<>();
    List<String> described = new ArrayList<>();
    try (cursor) {
      while (cursor.next()) {
        if (described.isEmpty() || !described.get(described.size() - 1).equals(cursor.describe())) {
          described.add(cursor.describe());
        }
        BigIntVector column = (BigIntVector) cursor.root().getVector("id");
        for (int row = 0; row < cursor.root().getRowCount(); row++) {
          ids.add(column.get(row));
        }
      }
    }
    assertThat(sorted(ids)).isEqualTo(range(600));
    assertThat(described)
        .containsExactly(
            "partition 3 (endpoint 1 of 2 of its query)",
            "partition 3 (endpoint 2 of 2 of its query)");
  }

  /**
   * The second read of a one-endpoint plan finds its ticket spent: the query runs again, and its
   * rows, the whole result, are read as they are now.
   */
  @Test
  void aSpentTicketOfAOneEndpointPlanIsReplacedByRunningTheQueryAgain() {
    Plan plan = plan(one.server(), "SELECT k, id FROM ties ORDER BY k");
    PlannedEndpoint endpoint = plan.endpoints.get(0);
    assertThat(endpoint.endpointCount()).isEqualTo(1);
    List<Long> first = ids(over(one.server(), plan, endpoint));
    assertThat(sorted(first)).isEqualTo(range(1000));
    try (EndpointCursor again = over(one.server(), plan, endpoint)) {
      List<Long> ids = new ArrayList<>();
      while (again.next()) {
        BigIntVector column = (BigIntVector) again.root().getVector("id");
        for (int row = 0; row < again.root().getRowCount(); row++) {
          ids.add(column.get(row));
        }
        assertThat(again.describe())
            .isEqualTo("partition 0 (endpoint 1 of 1 of its query run again)");
      }
      assertThat(sorted(ids)).isEqualTo(range(1000));
    }
  }

  /**
   * The second read of an endpoint of a two-endpoint plan, ordered over keys with ties, finds its
   * ticket spent. Running the query again could split the rows otherwise; the cursor fails before
   * yielding any row.
   */
  @Test
  void aSpentTicketOfAPlanOfSeveralEndpointsFailsBeforeAnyRow() {
    Plan plan = plan(several.server(), "SELECT k, id FROM ties ORDER BY k");
    for (PlannedEndpoint endpoint : plan.endpoints) {
      assertThat(ids(over(several.server(), plan, endpoint))).hasSize(500);
    }
    try (EndpointCursor again = over(several.server(), plan, plan.endpoints.get(1))) {
      assertThatThrownBy(again::next)
          .isInstanceOf(FlightSqlConnectorException.class)
          .hasMessageStartingWith("[flightsql] DoGet failed for " + several.uri() + ": NOT_FOUND: ")
          .hasMessageContaining("the query's 2 endpoints are not planned again")
          .hasMessageContaining("ties in an ORDER BY")
          .hasMessageContaining("cache() the DataFrame")
          .satisfies(
              e ->
                  assertThat(((FlightSqlConnectorException) e).statusCode())
                      .isEqualTo("NOT_FOUND"));
    }
  }
}
