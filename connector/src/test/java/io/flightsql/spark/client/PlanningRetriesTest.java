package io.flightsql.spark.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightUri;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Planning against a server that refuses connections (UNAVAILABLE, retried up to ten times, about
 * 40 s of pauses): the pauses end when option {@code queryTimeout} passes or planning is cancelled,
 * and the read fails saying which, not with the connection's failure after every retry.
 */
class PlanningRetriesTest {
  private static FlightUri nobodyListening() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return FlightUri.of("127.0.0.1", socket.getLocalPort(), false);
    }
  }

  private static ConnectionSettings tenRetries(FlightUri server) {
    return ConnectionSettings.builder(server).maxRetries(10).build();
  }

  @Test
  void queryTimeoutEndsThePausesBetweenRetries() throws Exception {
    FlightUri server = nobodyListening();
    try (FlightSqlSession session = FlightSqlSession.open(tenRetries(server), "retries-test")) {
      assertThatThrownBy(
              () -> session.plan("SELECT 1", Duration.ofSeconds(1), PlanningCancellation.NONE))
          .hasMessageStartingWith(
              "[flightsql] Planning failed for "
                  + server
                  + ": TIMED_OUT: the query was not planned within option 'queryTimeout' (1000"
                  + " ms); PollFlightInfo ")
          // Ended in a pause, or in the last try, whose deadline is the time left.
          .hasMessageMatching(
              ".*; PollFlightInfo (failed with UNAVAILABLE and was not tried again|passed its"
                  + " deadline and was cancelled)\\. Raise 'queryTimeout'.*")
          .hasMessageEndingWith("Query: SELECT 1");
    }
  }

  @Test
  void aCancellationEndsThePausesBetweenRetries() throws Exception {
    FlightUri server = nobodyListening();
    AtomicInteger asked = new AtomicInteger();
    PlanningCancellation cancelledSoon =
        () ->
            asked.incrementAndGet() > 2
                ? Optional.of("the Spark job group 'g' was cancelled")
                : Optional.empty();
    try (FlightSqlSession session = FlightSqlSession.open(tenRetries(server), "retries-test")) {
      assertThatThrownBy(() -> session.plan("SELECT 1", null, cancelledSoon))
          .hasMessageStartingWith("[flightsql] Planning failed for " + server + ": CANCELLED:")
          .hasMessageContaining(
              "the Spark job group 'g' was cancelled; PollFlightInfo failed with UNAVAILABLE and"
                  + " was not tried again. Query: SELECT 1");
    }
  }
}
