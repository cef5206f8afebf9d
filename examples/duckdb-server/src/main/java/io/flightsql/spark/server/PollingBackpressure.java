package io.flightsql.spark.server;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;

/**
 * Waits for the client to accept more data by polling {@code isReady()}.
 *
 * <p>Arrow's callback strategy cannot be used from a DoGet handler that streams on the calling
 * thread: gRPC delivers the "ready" callback on the call's own serialized executor, which that very
 * handler occupies, so once the client's flow-control window fills the callback never runs and both
 * sides wait forever (seen with two 500k-row endpoints read at once).
 */
final class PollingBackpressure implements BackpressureStrategy {
  private static final long MIN_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
  private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private ServerStreamListener listener;

  @Override
  public void register(ServerStreamListener listener) {
    this.listener = listener;
  }

  @Override
  public WaitResult waitForListener(long timeoutMillis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    long pause = MIN_PAUSE_NANOS;
    while (true) {
      if (listener.isCancelled()) {
        return WaitResult.CANCELLED;
      }
      if (listener.isReady()) {
        return WaitResult.READY;
      }
      if (System.nanoTime() - deadline > 0) {
        return WaitResult.TIMEOUT;
      }
      LockSupport.parkNanos(pause);
      pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
    }
  }
}
