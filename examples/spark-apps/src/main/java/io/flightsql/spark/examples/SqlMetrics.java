package io.flightsql.spark.examples;

import java.util.Arrays;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SparkPlanGraphNode;
import org.apache.spark.status.api.v1.AccumulableInfo;
import org.apache.spark.status.api.v1.StageData;
import scala.jdk.javaapi.CollectionConverters;

/**
 * SQL metrics as the SQL tab of Spark's UI shows them, and stage accumulators as its stage page
 * shows them, read back from Spark's status stores.
 */
final class SqlMetrics {
  private SqlMetrics() {}

  /**
   * The values of the named metrics (by their descriptions, summed over the plan's nodes) in the
   * latest SQL execution that has all of them, as numbers: "1,234 ms" is 1234. All -1 when no
   * execution has them.
   */
  static long[] latest(SparkSession spark, String... names) throws TimeoutException {
    // The status store is fed by the listener bus; wait until it has seen the execution's end.
    spark.sparkContext().listenerBus().waitUntilEmpty();
    SQLAppStatusStore store = spark.sharedState().statusStore();
    long[] latest = new long[names.length];
    Arrays.fill(latest, -1);
    long latestId = -1;
    for (SQLExecutionUIData execution : CollectionConverters.asJava(store.executionsList())) {
      long id = execution.executionId();
      if (id < latestId) {
        continue;
      }
      long[] values = new long[names.length];
      Arrays.fill(values, -1);
      scala.collection.Map<Object, String> shown = store.executionMetrics(id);
      for (SparkPlanGraphNode node : CollectionConverters.asJava(store.planGraph(id).allNodes())) {
        for (var metric : CollectionConverters.asJava(node.metrics())) {
          for (int i = 0; i < names.length; i++) {
            if (metric.name().equals(names[i])) {
              long value = number(shown.get(metric.accumulatorId()).getOrElse(() -> "-1"));
              values[i] = values[i] < 0 ? value : values[i] + value;
            }
          }
        }
      }
      if (Arrays.stream(values).allMatch(v -> v >= 0)) {
        latestId = id;
        latest = values;
      }
    }
    return latest;
  }

  /**
   * The value of the named accumulator in the latest stage that has it, as the stage page shows it
   * (a DataFrame write reports its figures so); -1 when no stage has it.
   */
  static long latestStageAccumulator(SparkSession spark, String name) throws TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    // Newest stage first.
    for (StageData stage :
        CollectionConverters.asJava(
            spark
                .sparkContext()
                .statusStore()
                .stageList(null, false, false, new double[0], java.util.List.of()))) {
      for (AccumulableInfo accumulator : CollectionConverters.asJava(stage.accumulatorUpdates())) {
        if (accumulator.name().equals(name)) {
          return number(accumulator.value());
        }
      }
    }
    return -1;
  }

  private static long number(String shown) {
    String digits = shown.replaceAll("[^0-9]", "");
    return digits.isEmpty() ? -1 : Long.parseLong(digits);
  }
}
