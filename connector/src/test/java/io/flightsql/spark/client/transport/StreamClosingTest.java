package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.EmbeddedServerExtension;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A DoGet stream closed on an interrupted thread, as a Spark task's reader is when the task is
 * killed while it closes: Flight's own close leaves the received batches allocated, {@link
 * StreamClosing} releases them and keeps the interrupt. Over Arrow's own client and its own
 * allocator, so that the test sees exactly the stream's memory.
 */
class StreamClosingTest {
  @RegisterExtension
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).lineitemRows(0).batchRows(100));

  private static final String ROWS = "SELECT i FROM range(100000) r(i)";

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  @Test
  void aStreamClosedOnAnInterruptedThreadReleasesItsBatchesAndKeepsTheInterrupt() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client = client(allocator)) {
      FlightStream stream = openAfterOneBatch(client);
      assertThat(allocator.getAllocatedMemory()).as("the batch read").isPositive();

      Thread.currentThread().interrupt();
      StreamClosing.close(stream);

      assertThat(Thread.interrupted()).as("the interrupt, kept for the caller").isTrue();
      assertThat(allocator.getAllocatedMemory()).as("bytes left after the close").isZero();
    }
  }

  /** Why the class exists: the same close through Flight alone fails and keeps the batch. */
  @Test
  void flightsOwnCloseOnAnInterruptedThreadKeepsTheBatch() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client = client(allocator)) {
      FlightStream stream = openAfterOneBatch(client);

      Thread.currentThread().interrupt();
      assertThatThrownBy(stream::close).hasRootCauseInstanceOf(InterruptedException.class);
      assertThat(allocator.getAllocatedMemory()).as("bytes left after the close").isPositive();

      stream.close();
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
  }

  private static FlightClient client(BufferAllocator allocator) {
    URI address = URI.create(duckDb.uri());
    return FlightClient.builder(
            allocator, Location.forGrpcInsecure(address.getHost(), address.getPort()))
        .build();
  }

  private static FlightStream openAfterOneBatch(FlightClient client) {
    FlightSqlClient sql = new FlightSqlClient(client);
    FlightInfo info = sql.execute(ROWS, CallOptions.timeout(60, TimeUnit.SECONDS));
    FlightStream stream =
        sql.getStream(
            info.getEndpoints().get(0).getTicket(), CallOptions.timeout(60, TimeUnit.SECONDS));
    assertThat(stream.next()).isTrue();
    return stream;
  }
}
