package io.flightsql.spark.client.transport;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.FlightStatusCode;

/**
 * Bounds one wait on a stream (the next record batch of a DoGet, gRPC's readiness or an
 * acknowledgement of a DoPut): when the wait lasts longer than option {@code streamIdleTimeout},
 * the stream is cancelled, which ends the wait with a failure, and {@link #fired()} tells the
 * waiter that the timeout, not the server, ended it. Each wait is timed on its own, so a slow but
 * steady stream is never cut. Close it when the wait is over, in a try-with-resources.
 */
public final class StreamWatch implements AutoCloseable {
  /** One daemon thread for the whole JVM: a timer only runs the cancellation it guards. */
  private static final ScheduledThreadPoolExecutor TIMERS = timers();

  private static final StreamWatch OFF = new StreamWatch(0);

  private final long timeoutMillis;
  private final AtomicBoolean fired = new AtomicBoolean();
  private ScheduledFuture<?> timer;

  private StreamWatch(long timeoutMillis) {
    this.timeoutMillis = timeoutMillis;
  }

  /**
   * Starts timing a wait: after {@code timeoutMillis} (0 or less: never) runs {@code cancel}, which
   * must make the waiting call return or fail.
   */
  public static StreamWatch start(long timeoutMillis, Runnable cancel) {
    if (timeoutMillis <= 0) {
      return OFF;
    }
    StreamWatch watch = new StreamWatch(timeoutMillis);
    watch.timer =
        TIMERS.schedule(
            () -> {
              if (watch.fired.compareAndSet(false, true)) {
                cancel.run();
              }
            },
            timeoutMillis,
            TimeUnit.MILLISECONDS);
    return watch;
  }

  /** Whether the wait outlived the timeout and the stream was cancelled. */
  public boolean fired() {
    return fired.get();
  }

  /** The timeout, for messages. */
  public long timeoutMillis() {
    return timeoutMillis;
  }

  /**
   * The connector's error for a stream that the timeout cancelled: {@code [flightsql] <rpc> failed
   * for <server>: TIMED_OUT: ...}, naming the option, the server and {@code what} was waiting (the
   * partition), with {@code cause} (the cancellation the stream reported) as its cause.
   */
  public static FlightSqlConnectorException idle(
      String rpc, FlightUri server, String what, long timeoutMillis, Throwable cause) {
    return FlightErrors.failure(
        rpc,
        server,
        FlightStatusCode.TIMED_OUT,
        silence(what, timeoutMillis),
        "Spark retries the task as spark.task.maxFailures allows; if the server is only slow to"
            + " send its first rows, raise 'streamIdleTimeout' (0 waits for ever)",
        cause);
  }

  /** What a stream the timeout cancelled was doing, for the errors of its callers. */
  static String silence(String what, long timeoutMillis) {
    return "the server sent nothing for "
        + describe(timeoutMillis)
        + " (option 'streamIdleTimeout') while "
        + what
        + ", so the stream was cancelled";
  }

  /** {@code 5 min}, {@code 30 s}, {@code 1500 ms}. */
  static String describe(long millis) {
    if (millis % 60_000 == 0) {
      return millis / 60_000 + " min";
    }
    return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
  }

  /** Stops the timer; the wait is over. */
  @Override
  public void close() {
    if (timer != null) {
      timer.cancel(false);
    }
  }

  private static ScheduledThreadPoolExecutor timers() {
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "flightsql-stream-idle");
              t.setDaemon(true);
              return t;
            });
    // A timer is set for each record batch and almost always cancelled: drop them at once.
    timers.setRemoveOnCancelPolicy(true);
    return timers;
  }
}
