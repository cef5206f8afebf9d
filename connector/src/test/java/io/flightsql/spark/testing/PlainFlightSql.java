package io.flightsql.spark.testing;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Another client of a Flight SQL server, independent of the connector: Arrow's own {@code
 * FlightSqlClient} on a connection of its own, every call with a deadline. What it reads is what
 * any other user of the server sees.
 */
public final class PlainFlightSql {
  private PlainFlightSql() {}

  /**
   * The rows of {@code sql}, each as its values' text joined by {@code |}, read from every endpoint
   * within {@code deadlineSeconds}.
   */
  public static List<String> rows(String uri, String sql, long deadlineSeconds) {
    URI address = URI.create(uri);
    CallOption deadline = CallOptions.timeout(deadlineSeconds, TimeUnit.SECONDS);
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client =
            FlightClient.builder(
                    allocator, Location.forGrpcInsecure(address.getHost(), address.getPort()))
                .build()) {
      FlightSqlClient sqlClient = new FlightSqlClient(client);
      FlightInfo info = sqlClient.execute(sql, deadline);
      List<String> rows = new ArrayList<>();
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        try (FlightStream stream = sqlClient.getStream(endpoint.getTicket(), deadline)) {
          while (stream.next()) {
            VectorSchemaRoot root = stream.getRoot();
            for (int i = 0; i < root.getRowCount(); i++) {
              StringBuilder row = new StringBuilder();
              for (FieldVector vector : root.getFieldVectors()) {
                row.append(row.length() > 0 ? "|" : "").append(vector.getObject(i));
              }
              rows.add(row.toString());
            }
          }
        }
      }
      return rows;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (Exception e) {
      throw new IllegalStateException("Could not read '" + sql + "' from " + uri + ": " + e, e);
    }
  }
}
