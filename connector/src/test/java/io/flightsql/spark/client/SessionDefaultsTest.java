package io.flightsql.spark.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Options catalog and schema as the defaults of the server's session (SetSessionOptions). */
@ExtendWith(ArrowLeakCheckExtension.class)
class SessionDefaultsTest {

  private static ConnectionSettings settings(DuckDbFlightSqlServer server, String schema) {
    return ConnectionSettings.builder(FlightUri.of("127.0.0.1", server.port(), false))
        .sessionDefaults(null, schema)
        .build();
  }

  @Test
  void acceptedDefaultsAreReportedAndQueriesResolveInThem() throws Exception {
    try (DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).sessions(true).start()) {
      server.execute("CREATE SCHEMA sales");
      try (FlightSqlSession session = FlightSqlSession.open(settings(server, "sales"), "test")) {
        assertThat(session.sessionHasDefaults()).isTrue();
      }
    }
  }

  @Test
  void aRefusedDefaultFailsEveryCallOfTheSessionWithTheSameClearError() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).sessions(true).start();
        FlightSqlSession session = FlightSqlSession.open(settings(server, "no_such"), "test")) {
      for (int attempt = 0; attempt < 2; attempt++) {
        assertThatThrownBy(session::sessionHasDefaults)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("Invalid value 'no_such' for option 'schema': ")
            .hasMessageContaining("refused it as the session's default (INVALID_VALUE");
      }
    }
  }
}
