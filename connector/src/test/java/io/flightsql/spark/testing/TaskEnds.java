package io.flightsql.spark.testing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.SparkSession;

/**
 * Waits until every task that started while this listens has ended. A job fails as soon as one task
 * does, while Spark still kills the others; what a killed task leaves on the server is known only
 * once it has ended. Close it to stop listening.
 */
public final class TaskEnds extends SparkListener implements AutoCloseable {
  private final SparkSession spark;
  private final AtomicInteger started = new AtomicInteger();
  private final AtomicInteger ended = new AtomicInteger();

  private TaskEnds(SparkSession spark) {
    this.spark = spark;
  }

  public static TaskEnds listen(SparkSession spark) {
    TaskEnds tasks = new TaskEnds(spark);
    spark.sparkContext().addSparkListener(tasks);
    return tasks;
  }

  @Override
  public void onTaskStart(SparkListenerTaskStart event) {
    started.incrementAndGet();
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd event) {
    ended.incrementAndGet();
  }

  /**
   * Waits until as many tasks ended as started, at most {@code deadline}, which should be far above
   * the time expected.
   *
   * @return the number of tasks that ran
   * @throws AssertionError naming the tasks still running at the deadline
   */
  public int awaitAllEnded(Duration deadline)
      throws InterruptedException, java.util.concurrent.TimeoutException {
    long end = System.nanoTime() + deadline.toNanos();
    while (true) {
      spark.sparkContext().listenerBus().waitUntilEmpty();
      int running = started.get() - ended.get();
      if (running == 0) {
        return started.get();
      }
      if (System.nanoTime() > end) {
        throw new AssertionError(running + " tasks still running after " + deadline);
      }
      Thread.sleep(50);
    }
  }

  @Override
  public void close() {
    spark.sparkContext().removeSparkListener(this);
  }
}
