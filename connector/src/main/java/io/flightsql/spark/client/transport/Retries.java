package io.flightsql.spark.client.transport;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retries of idempotent calls that failed with UNAVAILABLE (a server restarting, a refused or reset
 * connection) or whose stream was reset (INTERNAL with RST_STREAM, a server killed mid-call), after
 * an exponential back-off with jitter: before retry {@code n} (from 1) it waits a random time
 * between half and all of {@code min(10 s, 500 ms * 2^(n-1))}, so that many tasks failing at once
 * do not come back in step. Only planning calls (GetFlightInfo, GetSchema, GetSqlInfo, GetTables)
 * go through here; statements, uploads and transactions never do.
 */
public final class Retries {
  private static final Logger LOG = LoggerFactory.getLogger(Retries.class);

  static final long BASE_MILLIS = 500;
  static final long CAP_MILLIS = 10_000;

  private Retries() {}

  /**
   * The wait before retry {@code attempt} (1 for the first retry), given a random number in [0, 1).
   */
  static long delayMillis(int attempt, double random) {
    int doublings = Math.min(Math.max(attempt - 1, 0), 20);
    long ceiling = Math.min(CAP_MILLIS, BASE_MILLIS << doublings);
    long half = ceiling / 2;
    return half + (long) (random * (ceiling - half));
  }

  /**
   * Waits before the one retry of a partition's DoGet that failed with UNAVAILABLE, making gRPC
   * reconnect to {@code target} meanwhile.
   *
   * @return false if the thread was interrupted (the task is being killed): do not retry
   */
  public static boolean pauseBeforeStreamRetry(FlightUri target) {
    try {
      // 1 to 2 s: about what a restarting server needs to listen again.
      FlightChannels.reconnectDuring(
          target, delayMillis(3, ThreadLocalRandom.current().nextDouble()));
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Runs an idempotent call to {@code target}, retrying it up to {@code maxRetries} times while it
   * fails in a way that a retry may mend ({@link FlightErrors#isRetryable}: UNAVAILABLE, or a
   * stream reset). A pause ends early, failing with the last failure, when {@code budget} runs out
   * or is stopped, or the thread is interrupted. Earlier failures are kept as suppressed exceptions
   * of the last one.
   */
  static <T> T idempotent(
      String rpc, FlightUri target, int maxRetries, CallBudget budget, Supplier<T> call) {
    return idempotent(
        rpc, target, maxRetries, budget, call, () -> ThreadLocalRandom.current().nextDouble());
  }

  static <T> T idempotent(
      String rpc,
      FlightUri target,
      int maxRetries,
      CallBudget budget,
      Supplier<T> call,
      DoubleSupplier random) {
    RuntimeException first = null;
    for (int attempt = 0; ; attempt++) {
      try {
        T value = call.get();
        if (first != null) {
          LOG.info("{} to {} succeeded on retry {}", rpc, target, attempt);
        }
        return value;
      } catch (RuntimeException e) {
        if (first != null && first != e) {
          e.addSuppressed(first);
        }
        if (!FlightErrors.isRetryable(e)) {
          throw e;
        }
        if (attempt >= maxRetries) {
          throw afterRetries(e, first, attempt + 1);
        }
        if (first == null) {
          first = e;
        }
        long delay = delayMillis(attempt + 1, random.getAsDouble());
        LOG.warn(
            "{} to {} failed with {} ({}); retry {} of {} in {} ms",
            rpc,
            target,
            FlightErrors.statusOf(e),
            e.getMessage(),
            attempt + 1,
            maxRetries,
            delay);
        // Without the reconnection, gRPC would wait out its own back-off before the retry connects.
        pause(target, delay, budget, e);
      }
    }
  }

  /**
   * The last failure of a call tried {@code tries} times, saying so and, when it differs, how the
   * first try failed: the first failure is often the telling one (a connection closed by
   * keepalive), the last one only what the retries met (no connection within connectTimeout).
   */
  private static RuntimeException afterRetries(
      RuntimeException last, RuntimeException first, int tries) {
    if (tries < 2 || !(last instanceof FlightRuntimeException)) {
      return last;
    }
    CallStatus status = ((FlightRuntimeException) last).status();
    String description = String.valueOf(status.description());
    String firstDescription =
        first instanceof FlightRuntimeException
            ? String.valueOf(((FlightRuntimeException) first).status().description())
            : String.valueOf(first.getMessage());
    String tried =
        " (tried "
            + tries
            + " times"
            + (firstDescription.equals(description)
                ? ""
                : "; the first try failed with "
                    + FlightErrors.statusOf(first)
                    + ": "
                    + firstDescription)
            + ")";
    FlightRuntimeException failure =
        status.withDescription(description + tried).withCause(last).toRuntimeException();
    failure.addSuppressed(first);
    return failure;
  }

  /**
   * Waits {@code millis} before a retry, making gRPC reconnect meanwhile, in steps short enough to
   * see the caller's budget run out or stop, when {@code failure} is raised at once.
   */
  private static void pause(
      FlightUri target, long millis, CallBudget budget, RuntimeException failure) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    try {
      while (true) {
        if (budget.stopped()
            || budget.millisLeft() <= 0
            || Thread.currentThread().isInterrupted()) {
          throw failure;
        }
        long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
        if (left <= 0) {
          return;
        }
        FlightChannels.reconnectDuring(
            target, Math.min(Math.min(left, BUDGET_CHECK_MILLIS), budget.millisLeft()));
      }
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw failure;
    }
  }

  /** How often a pause looks at the caller's budget. */
  private static final long BUDGET_CHECK_MILLIS = 100;
}
