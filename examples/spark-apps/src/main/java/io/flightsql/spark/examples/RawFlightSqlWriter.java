package io.flightsql.spark.examples;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.ExecuteIngestOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The write benchmark's ceiling and its helper: Arrow Java's own Flight SQL client, with no Spark.
 * It uploads pre-built batches through one DoPut of bulk ingestion ({@code
 * FlightSqlClient.executeIngest}), and, outside the timed runs, prepares the target table and
 * counts its rows for every way. One connection, kept open for the whole benchmark.
 */
final class RawFlightSqlWriter implements AutoCloseable {

  private static final TableDefinitionOptions CREATE =
      TableDefinitionOptions.newBuilder()
          .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
          .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_FAIL)
          .build();

  /** What the connector asks for when it appends to a table that it found: the table must exist. */
  private static final TableDefinitionOptions APPEND =
      TableDefinitionOptions.newBuilder()
          .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL)
          .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
          .build();

  private final BufferAllocator allocator;
  private final FlightSqlClient client;

  RawFlightSqlWriter(String uri, BufferAllocator allocator) {
    this.allocator = allocator;
    this.client =
        new FlightSqlClient(FlightClient.builder(allocator, new Location(URI.create(uri))).build());
  }

  /**
   * Drops the table if it is there and creates it empty by ingesting no rows of {@code schema}, so
   * that every way writes into the same definition, whose column types the server chose, and into
   * an empty table.
   */
  void recreate(String table, Schema schema) {
    drop(table);
    try (VectorSchemaRoot empty = VectorSchemaRoot.create(schema, allocator)) {
      client.executeIngest(empty, options(table, CREATE));
    }
  }

  void drop(String table) {
    execute("DROP TABLE IF EXISTS " + table);
  }

  /** Runs a statement that returns no rows (DDL, {@code DELETE}), outside any transaction. */
  void execute(String sql) {
    client.executeUpdate(sql);
  }

  /**
   * Appends the batches to the table through one DoPut.
   *
   * @return the row count that the server reports
   */
  long ingest(String table, PrebuiltBatches batches) throws Exception {
    try (ArrowReader reader = batches.reader(allocator)) {
      return client.executeIngest(reader, options(table, APPEND));
    }
  }

  /** {@code SELECT count(*)} of the table, summed over the query's endpoints. */
  long count(String table) throws Exception {
    long count = 0;
    for (Object value : column("SELECT count(*) FROM " + table)) {
      count += ((Number) value).longValue();
    }
    return count;
  }

  /** The values of the first column of the query's rows, over all its endpoints. */
  List<Object> column(String sql) throws Exception {
    FlightInfo info = client.execute(sql);
    List<Object> values = new ArrayList<>();
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      // The embedded server's endpoints are on this connection; a benchmark against a server that
      // sends them elsewhere would fail here, loudly.
      // Closed in finally: FlightStream.close() may throw InterruptedException, which
      // try-with-resources would make a lint warning.
      FlightStream stream = client.getStream(endpoint.getTicket());
      try {
        while (stream.next()) {
          VectorSchemaRoot root = stream.getRoot();
          FieldVector first = root.getVector(0);
          for (int i = 0; i < root.getRowCount(); i++) {
            values.add(first.getObject(i));
          }
        }
      } finally {
        stream.close();
      }
    }
    return values;
  }

  private static ExecuteIngestOptions options(String table, TableDefinitionOptions definition) {
    return new ExecuteIngestOptions(table, definition, null, null, Map.of());
  }

  /**
   * Closes the connection. An interrupt while closing is kept as the thread's interrupt status, so
   * that this close throws no InterruptedException (try-with-resources would lint that).
   */
  @Override
  public void close() {
    try {
      client.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      throw new IllegalStateException("Closing the Flight SQL client failed", e);
    }
  }
}
