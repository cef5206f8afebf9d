package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.PollInfo;
import org.apache.arrow.flight.RenewFlightEndpointRequest;
import org.apache.arrow.flight.sql.CancelResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * PollFlightInfo, CancelFlightInfo (and CancelQuery), and endpoints that expire and are renewed, as
 * a plain Arrow Flight client sees them.
 */
@Timeout(60)
class LongQueryCommandsTest {
  private static final String SQL = "SELECT l_orderkey, l_linenumber FROM lineitem";

  private static DuckDbFlightSqlServerBuilder builder() {
    return DuckDbFlightSqlServer.builder().lineitemRows(2_000).batchRows(500);
  }

  private static FlightDescriptor query(String sql) {
    return FlightDescriptor.command(
        Any.pack(CommandStatementQuery.newBuilder().setQuery(sql).build()).toByteArray());
  }

  @Test
  void aPolledQueryReportsProgressUntilItsFlightInfoIsComplete() throws Exception {
    try (DuckDbFlightSqlServer server = builder().planningDelay(Duration.ofSeconds(1)).start();
        TestClient client = new TestClient(server)) {
      PollInfo poll = client.flight().pollInfo(query(SQL));
      assertThat(poll.getFlightDescriptor()).as("to poll again").isPresent();
      assertThat(poll.getProgress()).hasValueSatisfying(p -> assertThat(p).isBetween(0.0, 0.99));
      assertThat(poll.getExpirationTime()).isPresent();
      assertThat(poll.getFlightInfo().getEndpoints()).isEmpty();
      int polls = 1;
      while (poll.getFlightDescriptor().isPresent()) {
        Thread.sleep(100);
        poll = client.flight().pollInfo(poll.getFlightDescriptor().get());
        polls++;
      }
      assertThat(polls).isGreaterThan(2);
      assertThat(poll.getProgress()).contains(1.0);
      FlightInfo info = poll.getFlightInfo();
      assertThat(info.getEndpoints()).hasSize(2);
      assertThat(client.rows(info)).isEqualTo(TestClient.jdbcRows(server, SQL));
    }
  }

  @Test
  void otherCommandsArePolledToTheirFlightInfoAtOnce() throws Exception {
    try (DuckDbFlightSqlServer server = builder().start();
        TestClient client = new TestClient(server)) {
      FlightInfo tables = client.sql.getTables(null, null, "lineitem", null, false);
      PollInfo poll = client.flight().pollInfo(tables.getDescriptor());
      assertThat(poll.getFlightDescriptor()).isEmpty();
      assertThat(poll.getFlightInfo().getEndpoints()).hasSize(1);
    }
  }

  @Test
  void cancelFlightInfoStopsAQueryBeingPlanned() throws Exception {
    try (DuckDbFlightSqlServer server = builder().planningDelay(Duration.ofMinutes(5)).start();
        TestClient client = new TestClient(server)) {
      PollInfo poll = client.flight().pollInfo(query(SQL));
      assertThat(
              client
                  .flight()
                  .cancelFlightInfo(new CancelFlightInfoRequest(poll.getFlightInfo()))
                  .getStatus())
          .isEqualTo(CancelStatus.CANCELLED);
      assertThat(server.cancelledQueries()).isEqualTo(1);
      assertThatThrownBy(() -> client.flight().pollInfo(poll.getFlightDescriptor().get()))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND))
          .hasMessageContaining("is being planned");
      // The FlightInfo of a query planned by GetFlightInfo names no query being planned.
      FlightInfo planned = new FlightInfo(new Schema(List.of()), query(SQL), List.of(), -1, -1);
      assertThat(client.flight().cancelFlightInfo(new CancelFlightInfoRequest(planned)).getStatus())
          .isEqualTo(CancelStatus.NOT_CANCELLABLE);
    }
  }

  @Test
  @SuppressWarnings("deprecation") // CancelQuery, the older form of CancelFlightInfo
  void theCancelQueryActionCancelsToo() throws Exception {
    try (DuckDbFlightSqlServer server = builder().planningDelay(Duration.ofMinutes(5)).start();
        TestClient client = new TestClient(server)) {
      PollInfo poll = client.flight().pollInfo(query(SQL));
      assertThat(client.sql.cancelQuery(poll.getFlightInfo())).isEqualTo(CancelResult.CANCELLED);
      assertThat(server.cancelledQueries()).isEqualTo(1);
    }
  }

  @Test
  void pollFlightInfoCanBeTurnedOff() throws Exception {
    try (DuckDbFlightSqlServer server = builder().pollFlightInfo(false).start();
        TestClient client = new TestClient(server)) {
      assertThatThrownBy(() -> client.flight().pollInfo(query(SQL)))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNIMPLEMENTED))
          .hasMessageContaining("PollFlightInfo");
    }
  }

  @Test
  void expiredTicketsAreRefusedAndRenewedOnesRead() throws Exception {
    try (DuckDbFlightSqlServer server =
            builder().endpoints(1).endpointExpiration(Duration.ofMillis(300)).start();
        TestClient client = new TestClient(server)) {
      FlightEndpoint endpoint = client.sql.execute(SQL).getEndpoints().get(0);
      assertThat(endpoint.getExpirationTime()).isPresent();
      Thread.sleep(500);
      assertThatThrownBy(() -> client.rows(endpoint.getTicket()))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND))
          .hasMessageContaining("The ticket expired at")
          .hasMessageContaining("renew the endpoint (RenewFlightEndpoint)");
      List<FlightEndpoint> renewed = new ArrayList<>();
      renewed.add(client.flight().renewFlightEndpoint(new RenewFlightEndpointRequest(endpoint)));
      assertThat(renewed.get(0).getExpirationTime()).isPresent();
      assertThat(client.rows(renewed.get(0).getTicket()))
          .isEqualTo(TestClient.jdbcRows(server, SQL));
    }
  }

  @Test
  void renewalCanBeTurnedOff() throws Exception {
    try (DuckDbFlightSqlServer server =
            builder().endpointExpiration(Duration.ofMinutes(1)).renewEndpoints(false).start();
        TestClient client = new TestClient(server)) {
      FlightEndpoint endpoint = client.sql.execute(SQL).getEndpoints().get(0);
      assertThatThrownBy(
              () -> client.flight().renewFlightEndpoint(new RenewFlightEndpointRequest(endpoint)))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNIMPLEMENTED))
          .hasMessageContaining("RenewFlightEndpoint");
    }
  }
}
