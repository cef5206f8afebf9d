package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.server.DuckDbFlightSqlServerBuilder;
import io.flightsql.spark.server.RecordedCall;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.time.Duration;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The default bounds of waits against the embedded DuckDB server: a query the server plans for
 * longer than {@code streamIdleTimeout} is waited for (GetFlightInfo has no deadline but
 * keepalive's, and each poll of a polling server is answered at once), while a metadata answer
 * whose rows stop coming fails naming the option.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class BoundedWaitsTest {
  private static final int ROWS = 1000;
  private static final long SUM = (long) ROWS * (ROWS - 1) / 2;

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static DuckDbFlightSqlServer start(DuckDbFlightSqlServerBuilder builder)
      throws Exception {
    DuckDbFlightSqlServer server = builder.lineitemRows(0).start();
    server.execute("CREATE TABLE numbers AS SELECT range AS id FROM range(" + ROWS + ")");
    return server;
  }

  private static long sumOfIds(DuckDbFlightSqlServer server) {
    List<Row> rows =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", server.uri())
            .option("query", "SELECT id FROM numbers")
            .option("streamIdleTimeout", "2s")
            .load()
            .collectAsList();
    assertThat(rows).hasSize(ROWS);
    return rows.stream().mapToLong(r -> r.getLong(0)).sum();
  }

  @Test
  void aQueryPlannedLongerThanStreamIdleTimeoutByGetFlightInfoIsWaitedFor() throws Exception {
    try (DuckDbFlightSqlServer server =
        start(
            DuckDbFlightSqlServer.builder()
                .pollFlightInfo(false)
                .planningDelay(Duration.ofSeconds(5)))) {
      assertThat(sumOfIds(server)).isEqualTo(SUM);
    }
  }

  @Test
  void aQueryPlannedLongerThanStreamIdleTimeoutIsKeptAliveByItsPolls() throws Exception {
    CallRecorder calls = new CallRecorder();
    try (DuckDbFlightSqlServer server =
        start(
            DuckDbFlightSqlServer.builder()
                .planningDelay(Duration.ofSeconds(5))
                .middleware(CallRecorder.KEY, calls))) {
      assertThat(sumOfIds(server)).isEqualTo(SUM);
    }
    assertThat(calls.calls().stream().map(RecordedCall::method))
        .filteredOn("PollFlightInfo"::equals)
        .as("polls")
        .hasSizeGreaterThan(2);
  }

  @Test
  void aMetadataAnswerWhoseRowsStopComingFailsNamingStreamIdleTimeout() throws Exception {
    try (DuckDbFlightSqlServer server =
        start(
            DuckDbFlightSqlServer.builder()
                .endpoints(1)
                .batchRows(100)
                .batchDelay(Duration.ofSeconds(3)))) {
      ConnectionSettings settings =
          ConnectionSettings.builder(FlightUri.parse(server.uri()))
              .streamIdleTimeoutMillis(1000)
              .build();
      try (FlightSqlSession session = FlightSqlSession.open(settings, "bounded-test")) {
        assertThatThrownBy(() -> session.countRows("SELECT id FROM numbers"))
            .hasMessageStartingWith(
                "[flightsql] DoGet failed for "
                    + server.uri()
                    + ": TIMED_OUT: the server sent nothing for 1 s (option 'streamIdleTimeout')"
                    + " while reading the answer of a metadata call or probe, so the stream was"
                    + " cancelled. Check the server");
      }
    }
  }
}
