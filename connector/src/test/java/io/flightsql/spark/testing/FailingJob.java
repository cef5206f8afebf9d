package io.flightsql.spark.testing;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a job that must fail, and returns its failure, which must come within a deadline far above
 * the time expected: a job whose abort waits without bound fails the test instead of hanging it.
 */
public final class FailingJob {
  private FailingJob() {}

  /**
   * @throws AssertionError when {@code job} succeeds, or has not failed after {@code deadline}
   */
  public static Throwable failureOf(Runnable job, Duration deadline) throws InterruptedException {
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      Future<?> running = thread.submit(job);
      try {
        running.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        return e.getCause();
      } catch (TimeoutException e) {
        running.cancel(true);
        throw new AssertionError("The job's failure was not reported within " + deadline, e);
      }
      throw new AssertionError("The job succeeded; it was meant to fail");
    } finally {
      thread.shutdownNow();
    }
  }
}
