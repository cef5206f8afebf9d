package io.flightsql.spark.server;

import java.sql.SQLException;
import java.time.Duration;
import org.apache.arrow.flight.CallStatus;

/**
 * Counts the calls that are using DuckDB or Arrow memory, so that shutdown can wait for them to end
 * before it closes the database and checks the allocator for leaks. gRPC's own shutdown stops the
 * transport but not handlers still running on its executor.
 */
final class CallTracker {

  private int active;
  private boolean closed;

  /** A call's work, which may fail on DuckDB's side. */
  interface Body<T> {
    T run() throws SQLException;
  }

  /**
   * Runs {@code body} as a tracked call.
   *
   * @throws org.apache.arrow.flight.FlightRuntimeException UNAVAILABLE once shutdown has begun
   */
  <T> T track(Body<T> body) throws SQLException {
    enter();
    try {
      return body.run();
    } finally {
      exit();
    }
  }

  private synchronized void enter() {
    if (closed) {
      throw CallStatus.UNAVAILABLE
          .withDescription("The server is shutting down")
          .toRuntimeException();
    }
    active++;
  }

  private synchronized void exit() {
    active--;
    if (active == 0) {
      notifyAll();
    }
  }

  /**
   * Refuses new calls and waits up to {@code timeout} for running ones to end.
   *
   * @return the number of calls still running when the wait ended
   */
  synchronized int closeAndAwait(Duration timeout) throws InterruptedException {
    closed = true;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (active > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return active;
  }
}
