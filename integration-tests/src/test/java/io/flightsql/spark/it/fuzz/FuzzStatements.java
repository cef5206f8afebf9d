package io.flightsql.spark.it.fuzz;

import java.net.URI;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Runs the fuzzer's DDL and DML on a server it started, with Arrow's own client: as a
 * CommandStatementUpdate, or as a query read to its end on servers that run DDL only so (Sail).
 */
final class FuzzStatements {
  private FuzzStatements() {}

  static void execute(String uri, String sql) {
    run(uri, sql, false);
  }

  static void query(String uri, String sql) {
    run(uri, sql, true);
  }

  private static void run(String uri, String sql, boolean asQuery) {
    URI address = URI.create(uri);
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client =
            FlightClient.builder(
                    allocator, Location.forGrpcInsecure(address.getHost(), address.getPort()))
                .build()) {
      FlightSqlClient flightSql = new FlightSqlClient(client);
      if (!asQuery) {
        flightSql.executeUpdate(sql);
        return;
      }
      for (FlightEndpoint endpoint : flightSql.execute(sql).getEndpoints()) {
        try (FlightStream stream = client.getStream(endpoint.getTicket())) {
          while (stream.next()) {
            // Read to the end: the statement has run once its stream is drained.
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running: " + sql, e);
    } catch (Exception e) {
      throw new IllegalStateException("Could not run '" + sql + "' on " + uri + ": " + e, e);
    }
  }
}
