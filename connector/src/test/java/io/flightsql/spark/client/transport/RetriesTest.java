package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.CallStatus;
import org.junit.jupiter.api.Test;

class RetriesTest {
  private static final FlightUri SERVER = FlightUri.parse("grpc://127.0.0.1:1");

  @Test
  void theBackOffDoublesFromHalfASecondUpToTenSecondsWithJitterInItsUpperHalf() {
    assertThat(Retries.delayMillis(1, 0.0)).isEqualTo(250);
    assertThat(Retries.delayMillis(1, 0.999)).isBetween(499L, 500L);
    assertThat(Retries.delayMillis(2, 0.0)).isEqualTo(500);
    assertThat(Retries.delayMillis(2, 0.5)).isEqualTo(750);
    assertThat(Retries.delayMillis(3, 0.0)).isEqualTo(1000);
    assertThat(Retries.delayMillis(5, 0.0)).isEqualTo(4000);
    assertThat(Retries.delayMillis(6, 0.0)).isEqualTo(5000);
    assertThat(Retries.delayMillis(6, 0.999)).isBetween(9990L, 10_000L);
    // Capped, and no overflow for absurd attempt numbers.
    assertThat(Retries.delayMillis(60, 0.0)).isEqualTo(5000);
    assertThat(Retries.delayMillis(Integer.MAX_VALUE, 0.999)).isBetween(9990L, 10_000L);
  }

  @Test
  void unavailableIsRetriedUntilTheCallSucceeds() {
    AtomicInteger calls = new AtomicInteger();
    String value =
        Retries.idempotent(
            "GetFlightInfo",
            SERVER,
            3,
            CallBudget.UNLIMITED,
            () -> {
              if (calls.incrementAndGet() < 3) {
                throw CallStatus.UNAVAILABLE.withDescription("restarting").toRuntimeException();
              }
              return "info";
            },
            () -> 0.0);
    assertThat(value).isEqualTo("info");
    assertThat(calls).hasValue(3);
  }

  @Test
  void afterMaxRetriesTheLastFailureIsRaisedWithTheFirstSuppressed() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                Retries.idempotent(
                    "GetSchema",
                    SERVER,
                    2,
                    CallBudget.UNLIMITED,
                    () -> {
                      throw CallStatus.UNAVAILABLE
                          .withDescription("down " + calls.incrementAndGet())
                          .toRuntimeException();
                    },
                    () -> 0.0))
        .hasMessage("down 3 (tried 3 times; the first try failed with UNAVAILABLE: down 1)")
        .satisfies(e -> assertThat(e.getSuppressed()[0]).hasMessageContaining("down 1"));
    assertThat(calls).hasValue(3);
  }

  @Test
  void otherFailuresAndZeroRetriesAreNotRetried() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                Retries.idempotent(
                    "GetFlightInfo",
                    SERVER,
                    3,
                    CallBudget.UNLIMITED,
                    () -> {
                      calls.incrementAndGet();
                      throw CallStatus.INVALID_ARGUMENT
                          .withDescription("syntax error")
                          .toRuntimeException();
                    },
                    () -> 0.0))
        .hasMessageContaining("syntax error");
    assertThat(calls).hasValue(1);

    calls.set(0);
    assertThatThrownBy(
            () ->
                Retries.idempotent(
                    "GetFlightInfo",
                    SERVER,
                    0,
                    CallBudget.UNLIMITED,
                    () -> {
                      calls.incrementAndGet();
                      throw CallStatus.UNAVAILABLE.toRuntimeException();
                    },
                    () -> 0.0))
        .isNotNull();
    assertThat(calls).hasValue(1);
  }

  @Test
  void aStreamResetUnderTheCallIsRetriedAsUnavailableIsAndOtherInternalErrorsAreNot() {
    AtomicInteger calls = new AtomicInteger();
    String value =
        Retries.idempotent(
            "GetFlightInfo",
            SERVER,
            3,
            CallBudget.UNLIMITED,
            () -> {
              if (calls.incrementAndGet() == 1) {
                throw CallStatus.INTERNAL
                    .withDescription("RST_STREAM closed stream. HTTP/2 error code: INTERNAL_ERROR")
                    .toRuntimeException();
              }
              return "info";
            },
            () -> 0.0);
    assertThat(value).isEqualTo("info");
    assertThat(calls).hasValue(2);

    calls.set(0);
    assertThatThrownBy(
            () ->
                Retries.idempotent(
                    "GetFlightInfo",
                    SERVER,
                    3,
                    CallBudget.UNLIMITED,
                    () -> {
                      calls.incrementAndGet();
                      throw CallStatus.INTERNAL
                          .withDescription("Catalog Error: division by zero")
                          .toRuntimeException();
                    },
                    () -> 0.0))
        .hasMessageContaining("division by zero");
    assertThat(calls).hasValue(1);
  }

  /** A budget that runs out, or stops, once the call has failed {@code after} times. */
  private static CallBudget endingAfter(AtomicInteger calls, int after, boolean stop) {
    return new CallBudget() {
      @Override
      public long millisLeft() {
        return !stop && calls.get() >= after ? 0 : Long.MAX_VALUE;
      }

      @Override
      public boolean stopped() {
        return stop && calls.get() >= after;
      }
    };
  }

  private static Object failingCall(AtomicInteger calls) {
    throw CallStatus.UNAVAILABLE
        .withDescription("down " + calls.incrementAndGet())
        .toRuntimeException();
  }

  @Test
  void thePauseEndsWithTheLastFailureWhenTheCallersTimeRunsOut() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                Retries.idempotent(
                    "PollFlightInfo",
                    SERVER,
                    10,
                    endingAfter(calls, 2, false),
                    () -> failingCall(calls),
                    () -> 0.0))
        .hasMessageContaining("down 2");
    assertThat(calls).hasValue(2);
  }

  @Test
  void thePauseEndsWhenTheCallerStopsOrTheThreadIsInterrupted() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                Retries.idempotent(
                    "PollFlightInfo",
                    SERVER,
                    10,
                    endingAfter(calls, 1, true),
                    () -> failingCall(calls),
                    () -> 0.0))
        .hasMessageContaining("down 1");
    assertThat(calls).hasValue(1);

    calls.set(0);
    try {
      assertThatThrownBy(
              () ->
                  Retries.idempotent(
                      "PollFlightInfo",
                      SERVER,
                      10,
                      CallBudget.UNLIMITED,
                      () -> {
                        Thread.currentThread().interrupt();
                        return failingCall(calls);
                      },
                      () -> 0.0))
          .hasMessageContaining("down 1");
      assertThat(Thread.currentThread().isInterrupted()).as("interrupt kept").isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(calls).hasValue(1);
  }
}
