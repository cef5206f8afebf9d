package io.flightsql.spark.examples;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.DeephavenServer;
import io.flightsql.spark.servers.DerbyExampleServer;
import io.flightsql.spark.servers.GoSqliteServer;
import io.flightsql.spark.servers.SailServer;
import io.flightsql.spark.servers.ServerPaths;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The servers of {@link ServerLatencyBenchmark}, started by the launchers the integration tests use
 * (module {@code test-servers}), each holding {@link #TABLE}: 100 rows of {@code id} (1 to 100),
 * {@code name} ({@code item <id>}) and {@code score} ({@code id * 1.5}).
 */
// Flight's clients and the servers' launchers may throw InterruptedException from close(); the
// benchmark passes it on.
@SuppressWarnings("try")
final class LatencyServers {
  static final List<String> ALL = List.of("duckdb", "sqlite", "derby", "sail", "deephaven");
  static final String TABLE = "latency_items";
  static final String QUERY = "SELECT id, name, score FROM " + TABLE + " WHERE id <= 10";

  private LatencyServers() {}

  /** A running server: what reads it, and what stops it. */
  record Running(
      String name,
      String version,
      String uri,
      Map<String, String> options,
      String jdbcUrl,
      AutoCloseable stop)
      implements AutoCloseable {
    @Override
    public void close() throws Exception {
      stop.close();
    }
  }

  /** Starts the server named {@code name} and loads {@link #TABLE}. */
  static Running start(String name) throws Exception {
    Path logs = ServerPaths.buildDir();
    switch (name) {
      case "duckdb":
        {
          DuckDbFlightSqlServer server =
              DuckDbFlightSqlServer.builder().port(0).endpoints(1).lineitemRows(0).start();
          server.execute(
              "CREATE TABLE "
                  + TABLE
                  + " AS SELECT i AS id, 'item ' || i AS name, i * 1.5 AS score"
                  + " FROM range(1, 101) r(i)");
          return running(name, "embedded", server.uri(), Map.of(), server);
        }
      case "sqlite":
        {
          GoSqliteServer server = GoSqliteServer.start(logs.resolve("latency-sqlite.log"));
          update(server.uri(), "CREATE TABLE " + TABLE + " (id integer, name text, score double)");
          update(server.uri(), "INSERT INTO " + TABLE + " VALUES " + values());
          return running(
              name, "arrow-go " + GoSqliteServer.VERSION, server.uri(), Map.of(), server);
        }
      case "derby":
        {
          DerbyExampleServer server = DerbyExampleServer.start("latency-derby");
          update(
              server.uri(),
              "CREATE TABLE " + TABLE + " (id BIGINT, name VARCHAR(40), score DOUBLE)");
          update(server.uri(), "INSERT INTO " + TABLE + " VALUES " + values());
          return running(name, "Arrow Java example", server.uri(), Map.of(), server);
        }
      case "sail":
        {
          SailServer server =
              SailServer.start(logs.resolve("latency-sail"), logs.resolve("latency-sail.log"));
          query(
              server.uri(),
              "CREATE TABLE "
                  + TABLE
                  + " USING parquet AS SELECT id, concat('item ', id) AS name, id * 1.5 AS score"
                  + " FROM range(1, 101)");
          return running(name, "pysail " + SailServer.VERSION, server.uri(), Map.of(), server);
        }
      case "deephaven":
        {
          // The table is made by the server's start-up script, as a Python global.
          DeephavenServer server = DeephavenServer.start(logs.resolve("latency-deephaven.log"));
          Running running =
              running(
                  name,
                  "deephaven-server " + DeephavenServer.VERSION,
                  server.uri(),
                  Map.of("header.authorization", "Anonymous"),
                  server);
          // Deephaven binds a query's ticket to the session that planned it, which the driver
          // keeps only through a cookie it must ask for (Deephaven's JDBC instructions).
          return new Running(
              name,
              running.version(),
              running.uri(),
              running.options(),
              running.jdbcUrl() + "&x-deephaven-auth-cookie-request=true",
              server);
        }
      default:
        throw new IllegalArgumentException(
            "Unknown server '" + name + "'; expected one of " + String.join(",", ALL));
    }
  }

  private static Running running(
      String name, String version, String uri, Map<String, String> options, AutoCloseable stop) {
    StringBuilder jdbc = new StringBuilder(ReadBenchmark.jdbcUrl(uri));
    // The driver sends URL properties it does not know as call headers.
    options.forEach(
        (option, value) ->
            jdbc.append('&')
                .append(option.substring("header.".length()))
                .append('=')
                .append(value));
    return new Running(name, version, uri, options, jdbc.toString(), stop);
  }

  /** {@code (1, 'item 1', 1.5), ...} for the 100 rows. */
  private static String values() {
    List<String> rows = new ArrayList<>();
    for (int id = 1; id <= 100; id++) {
      rows.add(String.format(Locale.ROOT, "(%d, 'item %d', %.1f)", id, id, id * 1.5));
    }
    return String.join(", ", rows);
  }

  /** Runs DDL or DML with CommandStatementUpdate. */
  private static void update(String uri, String statement) throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client = client(uri, allocator);
        FlightSqlClient sql = new FlightSqlClient(client)) {
      sql.executeUpdate(statement);
    }
  }

  /** Runs a statement as a query, reading its result: Sail takes DDL no other way. */
  private static void query(String uri, String statement) throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client = client(uri, allocator);
        FlightSqlClient sql = new FlightSqlClient(client)) {
      FlightInfo info = sql.execute(statement);
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        try (FlightStream stream = sql.getStream(endpoint.getTicket())) {
          while (stream.next()) {
            // drained
          }
        }
      }
    }
  }

  private static FlightClient client(String uri, BufferAllocator allocator) {
    URI parsed = URI.create(uri);
    return FlightClient.builder(
            allocator, Location.forGrpcInsecure(parsed.getHost(), parsed.getPort()))
        .build();
  }
}
