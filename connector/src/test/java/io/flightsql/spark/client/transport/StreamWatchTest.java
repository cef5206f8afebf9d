package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StreamWatchTest {
  private static final FlightUri SERVER = FlightUri.parse("grpc://db.example.com:31337");

  @Test
  void aWaitLongerThanTheTimeoutCancelsTheStreamOnce() throws InterruptedException {
    CountDownLatch cancelled = new CountDownLatch(1);
    try (StreamWatch watch = StreamWatch.start(50, cancelled::countDown)) {
      assertThat(cancelled.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(watch.fired()).isTrue();
    }
  }

  @Test
  void aWaitThatEndsInTimeCancelsNothing() throws InterruptedException {
    AtomicInteger cancelled = new AtomicInteger();
    for (int i = 0; i < 20; i++) {
      try (StreamWatch watch = StreamWatch.start(200, cancelled::incrementAndGet)) {
        assertThat(watch.fired()).isFalse();
      }
    }
    Thread.sleep(400);
    assertThat(cancelled).hasValue(0);
  }

  @Test
  void zeroTurnsTheWatchOff() throws InterruptedException {
    AtomicInteger cancelled = new AtomicInteger();
    try (StreamWatch watch = StreamWatch.start(0, cancelled::incrementAndGet)) {
      Thread.sleep(50);
      assertThat(watch.fired()).isFalse();
    }
    assertThat(cancelled).hasValue(0);
  }

  @Test
  void theErrorNamesTheOptionTheServerAndWhatWasWaiting() {
    FlightSqlConnectorException e =
        StreamWatch.idle("DoGet", SERVER, "reading partition 3 (endpoint 4 of 8)", 30_000, null);
    assertThat(e)
        .hasMessageStartingWith(
            "[flightsql] DoGet failed for grpc://db.example.com:31337: TIMED_OUT: the server sent"
                + " nothing for 30 s (option 'streamIdleTimeout') while reading partition 3"
                + " (endpoint 4 of 8), so the stream was cancelled.")
        .hasMessageContaining("raise 'streamIdleTimeout'");
    assertThat(e.statusCode()).isEqualTo("TIMED_OUT");
    assertThat(StreamWatch.idle("DoPut", SERVER, "x", 1500, null))
        .hasMessageContaining("nothing for 1500 ms");
  }
}
