package io.flightsql.spark.it;

import java.net.URI;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Runs DDL and DML on a Flight SQL server with Arrow's own (unshaded) client, so that test data is
 * written through the server the connector then reads from. Every call is a single auto-committed
 * statement: no transaction is ever left open on the server.
 */
final class FlightSqlUpdates {
  private FlightSqlUpdates() {}

  static long execute(String uri, String sql) {
    URI address = URI.create(uri);
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client =
            FlightClient.builder(
                    allocator, Location.forGrpcInsecure(address.getHost(), address.getPort()))
                .build()) {
      return new FlightSqlClient(client).executeUpdate(sql);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running: " + sql, e);
    } catch (RuntimeException e) {
      throw new IllegalStateException("Could not run '" + sql + "' on " + uri + ": " + e, e);
    }
  }

  /**
   * Runs {@code sql} as a statement query (CommandStatementQuery) and reads every endpoint to its
   * end, for servers that run DDL and DML only that way (Sail); returns the rows read.
   */
  static long query(String uri, String sql) {
    URI address = URI.create(uri);
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client =
            FlightClient.builder(
                    allocator, Location.forGrpcInsecure(address.getHost(), address.getPort()))
                .build()) {
      long rows = 0;
      FlightInfo info = new FlightSqlClient(client).execute(sql);
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        try (FlightStream stream = client.getStream(endpoint.getTicket())) {
          while (stream.next()) {
            rows += stream.getRoot().getRowCount();
          }
        }
      }
      return rows;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running: " + sql, e);
    } catch (Exception e) {
      throw new IllegalStateException("Could not run '" + sql + "' on " + uri + ": " + e, e);
    }
  }
}
