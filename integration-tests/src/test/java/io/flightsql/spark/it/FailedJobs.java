package io.flightsql.spark.it;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.SparkSession;

/**
 * Runs a Spark job that must fail, within a deadline far above the time expected, and waits until
 * every task it started has ended: a job fails as soon as one task does, while Spark still kills
 * the others, and what a killed task leaves on the server is known only once it has ended.
 */
final class FailedJobs {
  private FailedJobs() {}

  /**
   * @return the job's failure
   * @throws AssertionError when the job succeeds, or has not failed (or its tasks not ended) within
   *     {@code deadline}
   */
  static Throwable failureOf(SparkSession spark, Runnable job, Duration deadline)
      throws InterruptedException, TimeoutException {
    Tasks tasks = new Tasks();
    spark.sparkContext().addSparkListener(tasks);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      Throwable failure;
      Future<?> running = thread.submit(job);
      try {
        running.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
        throw new AssertionError("The job succeeded; it was meant to fail");
      } catch (ExecutionException e) {
        failure = e.getCause();
      } catch (TimeoutException e) {
        running.cancel(true);
        throw new AssertionError("The job's failure was not reported within " + deadline, e);
      }
      long end = System.nanoTime() + deadline.toNanos();
      while (true) {
        spark.sparkContext().listenerBus().waitUntilEmpty();
        int unfinished = tasks.started.get() - tasks.ended.get();
        if (unfinished == 0) {
          return failure;
        }
        if (System.nanoTime() > end) {
          throw new AssertionError(unfinished + " tasks still running " + deadline + " after");
        }
        Thread.sleep(50);
      }
    } finally {
      thread.shutdownNow();
      spark.sparkContext().removeSparkListener(tasks);
    }
  }

  private static final class Tasks extends SparkListener {
    final AtomicInteger started = new AtomicInteger();
    final AtomicInteger ended = new AtomicInteger();

    @Override
    public void onTaskStart(SparkListenerTaskStart event) {
      started.incrementAndGet();
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd event) {
      ended.incrementAndGet();
    }
  }
}
