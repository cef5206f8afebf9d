package io.flightsql.spark.examples;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.LocationSchemes;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The benchmark's ceiling: the plain Arrow Java Flight SQL client, with no Spark at all. It sends
 * the query (GetFlightInfo), then drains every endpoint on its own thread and over its own
 * connection, as Spark's tasks do, and looks at nothing but the row count and the buffer sizes of
 * each record batch.
 */
final class RawFlightSqlReader implements AutoCloseable {

  /**
   * What one read received.
   *
   * @param rows rows of all endpoints
   * @param bytes the Arrow buffer bytes of all record batches: the body of their IPC messages
   * @param endpoints how many endpoints the query had
   * @param batches how many record batches all endpoints sent
   * @param largestBatch the Arrow buffer bytes of the largest record batch
   */
  record Result(long rows, long bytes, int endpoints, long batches, long largestBatch) {}

  private final Location origin;
  private final BufferAllocator allocator;
  private final ExecutorService threads;

  RawFlightSqlReader(String uri, BufferAllocator allocator) {
    this.origin = new Location(URI.create(uri));
    this.allocator = allocator;
    this.threads =
        Executors.newCachedThreadPool(
            work -> {
              Thread thread = new Thread(work, "raw-flight-reader");
              thread.setDaemon(true);
              return thread;
            });
  }

  Result read(String query) throws Exception {
    // Flight's clients and streams may throw InterruptedException from close(), which
    // try-with-resources would make a lint warning: they are closed in finally blocks instead.
    FlightInfo info;
    FlightSqlClient client = new FlightSqlClient(FlightClient.builder(allocator, origin).build());
    try {
      info = client.execute(query);
    } finally {
      client.close();
    }
    List<Future<long[]>> streams = new ArrayList<>();
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      streams.add(threads.submit(() -> drain(endpoint)));
    }
    long rows = 0;
    long bytes = 0;
    long batches = 0;
    long largest = 0;
    for (Future<long[]> stream : streams) {
      long[] received = await(stream);
      rows += received[0];
      bytes += received[1];
      batches += received[2];
      largest = Math.max(largest, received[3]);
    }
    return new Result(rows, bytes, streams.size(), batches, largest);
  }

  /** Reads one endpoint to its end; returns its rows, bytes, batches and largest batch's bytes. */
  private long[] drain(FlightEndpoint endpoint) throws Exception {
    long rows = 0;
    long bytes = 0;
    long batches = 0;
    long largest = 0;
    BufferAllocator streamAllocator = allocator.newChildAllocator("endpoint", 0, Long.MAX_VALUE);
    FlightClient client = null;
    FlightStream stream = null;
    try {
      client = FlightClient.builder(streamAllocator, target(endpoint)).build();
      stream = client.getStream(endpoint.getTicket());
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        rows += root.getRowCount();
        long batch = 0;
        for (FieldVector vector : root.getFieldVectors()) {
          batch += vector.getBufferSize();
        }
        bytes += batch;
        batches++;
        largest = Math.max(largest, batch);
      }
    } finally {
      // In this order, skipping nulls; the allocator last, as it checks that nothing leaked.
      AutoCloseables.close(stream, client, streamAllocator);
    }
    return new long[] {rows, bytes, batches, largest};
  }

  /**
   * Where an endpoint's stream is: the server that planned the query when the endpoint names no
   * location or asks to reuse the connection, otherwise its first location. A production client
   * would try the other locations too; for a benchmark, a failure should stay a failure.
   */
  private Location target(FlightEndpoint endpoint) {
    if (endpoint.getLocations().isEmpty()) {
      return origin;
    }
    Location first = endpoint.getLocations().get(0);
    return LocationSchemes.REUSE_CONNECTION.equals(first.getUri().getScheme()) ? origin : first;
  }

  private static long[] await(Future<long[]> stream) throws Exception {
    try {
      return stream.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
