package io.flightsql.spark.it;

import java.net.URI;
import java.time.Duration;
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
 * Runs DDL and DML on a Flight SQL server with Arrow's own (unshaded) client, so that test data is
 * written through the server the connector then reads from. Every call is a single auto-committed
 * statement: no transaction is ever left open on the server.
 */
final class FlightSqlUpdates {
  private FlightSqlUpdates() {}

  /** One use of a client of the server. */
  @FunctionalInterface
  private interface Use<T> {
    T apply(FlightClient client, FlightSqlClient sql) throws Exception;
  }

  /**
   * Runs {@code use} with a client of its own, closed after it; a failure names {@code what} and
   * the server.
   */
  private static <T> T withClient(String uri, String what, Use<T> use) {
    URI address = URI.create(uri);
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client =
            FlightClient.builder(
                    allocator, Location.forGrpcInsecure(address.getHost(), address.getPort()))
                .build()) {
      return use.apply(client, new FlightSqlClient(client));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running: " + what, e);
    } catch (Exception e) {
      throw new IllegalStateException("Could not run '" + what + "' on " + uri + ": " + e, e);
    }
  }

  static long execute(String uri, String sql) {
    return withClient(uri, sql, (client, flightSql) -> flightSql.executeUpdate(sql));
  }

  /**
   * Runs {@code sql} as a statement query (CommandStatementQuery) and reads every endpoint to its
   * end, for servers that run DDL and DML only that way (Sail); returns the rows read.
   */
  static long query(String uri, String sql) {
    return withClient(
        uri,
        sql,
        (client, flightSql) -> {
          long rows = 0;
          for (FlightEndpoint endpoint : flightSql.execute(sql).getEndpoints()) {
            try (FlightStream stream = client.getStream(endpoint.getTicket())) {
              while (stream.next()) {
                rows += stream.getRoot().getRowCount();
              }
            }
          }
          return rows;
        });
  }

  /** Runs one statement as {@link #execute(String, String)} does, within {@code deadline}. */
  static long execute(String uri, String sql, Duration deadline) {
    return withClient(
        uri, sql, (client, flightSql) -> flightSql.executeUpdate(sql, within(deadline)));
  }

  /**
   * The rows of a query, each as its values' text joined by {@code |}, read from every endpoint
   * within {@code deadline}: what any other client of the server sees.
   */
  static List<String> rows(String uri, String sql, Duration deadline) {
    CallOption within = within(deadline);
    return withClient(
        uri,
        sql,
        (client, flightSql) -> {
          List<String> rows = new ArrayList<>();
          for (FlightEndpoint endpoint : flightSql.execute(sql, within).getEndpoints()) {
            try (FlightStream stream = client.getStream(endpoint.getTicket(), within)) {
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
        });
  }

  /** The names of the columns of {@code sql}'s answer, as the server sends them. */
  static List<String> columnNames(String uri, String sql, Duration deadline) {
    CallOption within = within(deadline);
    return withClient(
        uri,
        sql,
        (client, flightSql) -> {
          FlightInfo info = flightSql.execute(sql, within);
          try (FlightStream stream =
              client.getStream(info.getEndpoints().get(0).getTicket(), within)) {
            List<String> names = new ArrayList<>();
            stream.getSchema().getFields().forEach(field -> names.add(field.getName()));
            while (stream.next()) {
              // Read to the end, so that the server is not left sending.
            }
            return names;
          }
        });
  }

  /** The tables GetTables lists whose names start with {@code prefix}, within {@code deadline}. */
  static List<String> tablesStartingWith(String uri, String prefix, Duration deadline) {
    CallOption within = within(deadline);
    return withClient(
        uri,
        "GetTables",
        (client, flightSql) -> {
          FlightInfo info = flightSql.getTables(null, null, null, null, false, within);
          List<String> names = new ArrayList<>();
          for (FlightEndpoint endpoint : info.getEndpoints()) {
            try (FlightStream stream = client.getStream(endpoint.getTicket(), within)) {
              while (stream.next()) {
                FieldVector tableNames = stream.getRoot().getVector("table_name");
                for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
                  String name = String.valueOf(tableNames.getObject(i));
                  if (name.startsWith(prefix)) {
                    names.add(name);
                  }
                }
              }
            }
          }
          return names;
        });
  }

  private static CallOption within(Duration deadline) {
    return CallOptions.timeout(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }
}
