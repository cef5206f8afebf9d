package io.flightsql.spark.read;

import io.flightsql.spark.config.FlightSqlReadConfig;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Cancels on the server (CancelFlightInfo) the plans of reads' queries that no job will read: at
 * once where Spark dropped one (a runtime filter planned the query again), else once option {@code
 * unreadPlanLifetime} passed without a job reading it (an EXPLAIN, the statistics of a scan Spark
 * superseded). A server that computes a result when it plans a query (DuckDB, Dremio, Doris, Sail)
 * then frees it instead of holding it until its own expiry. One daemon thread for the JVM waits and
 * sends the cancels, in turn, each bounded by the call's deadline: no thread per plan. Driver only.
 */
final class UnreadPlans {
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "flightsql-unread-plans");
            thread.setDaemon(true);
            return thread;
          });

  private UnreadPlans() {}

  /** Cancels {@code plan} now, on the timer's thread: the caller goes on planning. */
  static void cancel(FlightSqlReadConfig config, PlannedQuery plan) {
    TIMER.execute(() -> plan.cancel(config));
  }

  /**
   * Once {@code lifetime} passed, cancels {@code plan} if {@code unread} (asked then, on the
   * timer's thread) still says no job read it.
   */
  static void cancelIfUnread(
      FlightSqlReadConfig config,
      PlannedQuery plan,
      Duration lifetime,
      Predicate<PlannedQuery> unread) {
    TIMER.schedule(
        () -> {
          if (unread.test(plan)) {
            plan.cancel(config);
          }
        },
        lifetime.toMillis(),
        TimeUnit.MILLISECONDS);
  }
}
