package io.flightsql.spark.server;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What tests may ask of the server's query streams (DoGet): a pause before each record batch, to
 * play a slow but steady server, and observers told at once when a client cancels a stream, to see
 * how fast cancellation reaches the server.
 *
 * @param batchDelay how long to wait before sending each record batch; zero for no wait
 * @param cancellationObservers run on gRPC's thread as soon as a client cancels a DoGet
 */
record DoGetPacing(Duration batchDelay, List<Runnable> cancellationObservers) {

  static final DoGetPacing NONE = new DoGetPacing(Duration.ZERO, List.of());

  DoGetPacing {
    cancellationObservers = List.copyOf(cancellationObservers);
  }

  /** Tells the observers that a client cancelled a DoGet. */
  void cancelled() {
    cancellationObservers.forEach(Runnable::run);
  }

  /**
   * Waits {@link #batchDelay} before a batch, in short naps so that a cancelled stream stops at
   * once.
   *
   * @return false if {@code cancelled} turned true, or the thread was interrupted, meanwhile
   */
  boolean pause(BooleanSupplier cancelled) {
    long deadline = System.nanoTime() + batchDelay.toNanos();
    while (System.nanoTime() < deadline) {
      if (cancelled.getAsBoolean()) {
        return false;
      }
      try {
        TimeUnit.MILLISECONDS.sleep(
            Math.max(1, Math.min(20, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return !cancelled.getAsBoolean();
  }
}
