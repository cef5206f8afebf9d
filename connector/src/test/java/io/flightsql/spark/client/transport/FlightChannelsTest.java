package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JVM's channels against the embedded DuckDB server: shared by clients, shut down once none
 * uses them and never under a call, and no call waits for ever on a connection that opens but never
 * completes its handshakes.
 */
class FlightChannelsTest {
  private static final int ROWS = 2000;
  private static DuckDbFlightSqlServer server;

  @BeforeAll
  static void start() throws Exception {
    server =
        DuckDbFlightSqlServer.builder()
            .lineitemRows(0)
            .endpoints(1)
            .batchRows(100)
            .batchDelay(Duration.ofMillis(20))
            .start();
    server.execute("CREATE TABLE t AS SELECT range AS id FROM range(" + ROWS + ")");
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** Settings of their own, so that no other test's client shares (and holds) the channel. */
  private static ConnectionSettings ownSettings() {
    return ConnectionSettings.builder(FlightUri.parse(server.uri()))
        .connectTimeoutMillis(30_000 + System.nanoTime() % 1000)
        .build();
  }

  @Test
  void aChannelIsSharedAndShutDownOnlyOnceNoClientUsesIt() {
    ConnectionSettings settings = ownSettings();
    SharedChannel first = FlightChannels.acquire(settings.uri(), settings);
    SharedChannel second = FlightChannels.acquire(settings.uri(), settings);
    assertThat(second.channel()).isSameAs(first.channel());

    first.shutdown();
    first.shutdown();
    FlightChannels.evictIdle(0);
    assertThat(first.channel().isShutdown()).as("shut down while a client uses it").isFalse();

    second.shutdown();
    FlightChannels.evictIdle(0);
    assertThat(first.channel().isShutdown()).isTrue();
    assertThat(FlightChannels.connection(settings.uri(), settings)).isEqualTo(-1);

    SharedChannel next = FlightChannels.acquire(settings.uri(), settings);
    try {
      assertThat(next.channel()).isNotSameAs(first.channel());
      assertThat(next.channel().isShutdown()).isFalse();
    } finally {
      next.shutdown();
    }
  }

  @Test
  void aChannelUnderAStreamIsNotEvictedAndTheStreamIsReadToItsEnd() throws Exception {
    ConnectionSettings settings = ownSettings();
    SharedChannel used;
    try (BufferAllocator allocator = Allocators.newChild("channels-test")) {
      FlightSqlClientWithOptions client =
          new FlightSqlClientWithOptions(
              settings.uri(), new CallState(settings, SessionState.empty()), allocator);
      used = FlightChannels.acquire(settings.uri(), settings);
      used.shutdown();
      FlightEndpoint endpoint = client.execute("SELECT id FROM t").getEndpoints().get(0);
      long rows = 0;
      long sum = 0;
      try (FlightStream stream = client.getStream(endpoint.getTicket())) {
        // The stream has sent its schema only; its batches come 20 ms apart.
        FlightChannels.evictIdle(0);
        while (stream.next()) {
          BigIntVector ids = (BigIntVector) stream.getRoot().getVector(0);
          for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
            rows++;
            sum += ids.get(i);
          }
        }
      } finally {
        client.close();
      }
      assertThat(rows).isEqualTo(ROWS);
      assertThat(sum).isEqualTo((long) ROWS * (ROWS - 1) / 2);
    }
    assertThat(used.channel().isShutdown()).isFalse();
    FlightChannels.evictIdle(0);
    assertThat(used.channel().isShutdown()).as("evicted once its client closed").isTrue();
  }

  @Test
  void aServerThatAcceptsConnectionsButNeverAnswersFailsTheCallNamingConnectTimeout()
      throws Exception {
    List<Socket> accepted = new CopyOnWriteArrayList<>();
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread acceptor =
          new Thread(
              () -> {
                while (!silent.isClosed()) {
                  try {
                    accepted.add(silent.accept());
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      ConnectionSettings settings =
          ConnectionSettings.builder(FlightUri.of("127.0.0.1", silent.getLocalPort(), false))
              .connectTimeoutMillis(1500)
              .maxRetries(0)
              .build();
      CompletableFuture<Object> call =
          CompletableFuture.supplyAsync(
              () -> {
                try (BufferAllocator allocator = Allocators.newChild("silent-test");
                    FlightSqlClientWithOptions client =
                        new FlightSqlClientWithOptions(
                            settings.uri(),
                            new CallState(settings, SessionState.empty()),
                            allocator)) {
                  return client.getSqlInfo();
                }
              });
      // Far above the bound: without it the call waits as long as the socket stays open.
      assertThatThrownBy(() -> call.get(120, TimeUnit.SECONDS))
          .hasMessageContaining(
              "UNAVAILABLE: no connection within option 'connectTimeout' (1500 ms): the server (or"
                  + " a proxy in front of it) did not complete the TCP, TLS and HTTP/2 handshakes");
      assertThat(accepted).as("the TCP connection was made").isNotEmpty();
    } finally {
      for (Socket socket : accepted) {
        socket.close();
      }
    }
  }
}
