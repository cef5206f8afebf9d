package io.flightsql.spark.testing;

import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What the Spark UI's stage page shows of the stages completed while this is open: their output
 * records and bytes (task output metrics) and their named accumulators, from the listener events
 * the UI itself is fed. Close it to stop listening.
 */
public final class StageMetrics extends SparkListener implements AutoCloseable {
  private final SparkSession spark;
  private final CopyOnWriteArrayList<StageInfo> completed = new CopyOnWriteArrayList<>();

  private StageMetrics(SparkSession spark) {
    this.spark = spark;
  }

  public static StageMetrics record(SparkSession spark) {
    StageMetrics metrics = new StageMetrics(spark);
    spark.sparkContext().addSparkListener(metrics);
    return metrics;
  }

  @Override
  public void onStageCompleted(SparkListenerStageCompleted event) {
    completed.add(event.stageInfo());
  }

  private void awaitEvents() throws TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty();
  }

  /** The records written, summed over the stages' successful tasks. */
  public long outputRecords() throws TimeoutException {
    awaitEvents();
    long sum = 0;
    for (StageInfo stage : completed) {
      sum += stage.taskMetrics().outputMetrics().recordsWritten();
    }
    return sum;
  }

  /** The bytes written, summed over the stages' successful tasks. */
  public long outputBytes() throws TimeoutException {
    awaitEvents();
    long sum = 0;
    for (StageInfo stage : completed) {
      sum += stage.taskMetrics().outputMetrics().bytesWritten();
    }
    return sum;
  }

  /** The value of the accumulator of that name, summed over the stages; empty when none has it. */
  public Optional<Long> accumulator(String name) throws TimeoutException {
    awaitEvents();
    Long sum = null;
    for (StageInfo stage : completed) {
      for (AccumulableInfo info : CollectionConverters.asJava(stage.accumulables().values())) {
        if (info.name().isDefined() && info.name().get().equals(name)) {
          long value = Long.parseLong(String.valueOf(info.value().get()));
          sum = sum == null ? value : sum + value;
        }
      }
    }
    return Optional.ofNullable(sum);
  }

  @Override
  public void close() {
    spark.sparkContext().removeSparkListener(this);
  }
}
