package io.flightsql.spark.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A clean-up statement (dropping a staging table at a job's commit or abort, or after a failed
 * task) that the server holds, as a server does behind a lock another transaction keeps, ends after
 * option {@code streamIdleTimeout} with an error naming it, instead of holding the job for ever.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class BoundedStatementTest {

  /** Takes every DoPut and answers none until released. */
  private static final class HoldingProducer extends NoOpFlightProducer {
    final CountDownLatch held = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public Runnable acceptPut(
        CallContext context, FlightStream stream, StreamListener<PutResult> ack) {
      return () -> {
        held.countDown();
        try {
          release.await();
          ack.onCompleted();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
          // The client gave up on the call: nobody to answer.
        }
      };
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES) // far above the 1 s bound: a hang fails the test
  void aStatementTheServerHoldsFailsAfterStreamIdleTimeoutNamingIt() throws Exception {
    HoldingProducer producer = new HoldingProducer();
    try (BufferAllocator allocator = new RootAllocator();
        FlightServer server =
            FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", 0), producer)
                .build()
                .start()) {
      String uri = "grpc://127.0.0.1:" + server.getPort();
      ConnectionSettings settings =
          ConnectionSettings.builder(FlightUri.parse(uri)).streamIdleTimeoutMillis(1000).build();
      try (FlightSqlSession session = FlightSqlSession.open(settings, "bounded-statement")) {
        assertThatThrownBy(() -> session.executeUpdateBounded("DROP TABLE t_flightsql_1_0_0"))
            .hasMessageStartingWith(
                "[flightsql] DoPut(CommandStatementUpdate) failed for " + uri + ": TIMED_OUT")
            .hasMessageContaining("'streamIdleTimeout'");
      } finally {
        producer.release.countDown();
      }
      assertThat(producer.held.getCount()).as("the server held the statement").isZero();
    }
  }
}
