package io.flightsql.spark.testing;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SparkPlanGraphNode;
import scala.jdk.javaapi.CollectionConverters;

/** The metrics the Spark UI's SQL tab shows, read from its store as a user would see them. */
public final class SqlUiMetrics {
  private SqlUiMetrics() {}

  /**
   * The named metrics, as the SQL tab shows them (e.g. {@code 1000} or {@code 12 ms}), of the
   * latest SQL execution that has them all; empty when none has.
   */
  public static Map<String, String> latest(SparkSession spark, String... names)
      throws java.util.concurrent.TimeoutException {
    // The store is fed by the listener bus: let it take in the end of the job just run.
    spark.sparkContext().listenerBus().waitUntilEmpty();
    SQLAppStatusStore store = spark.sharedState().statusStore();
    Map<String, String> out = new HashMap<>();
    long latest = -1;
    for (SQLExecutionUIData execution : CollectionConverters.asJava(store.executionsList())) {
      if (execution.executionId() < latest) {
        continue;
      }
      Map<String, String> found = new HashMap<>();
      for (SparkPlanGraphNode node :
          CollectionConverters.asJava(store.planGraph(execution.executionId()).allNodes())) {
        for (var metric : CollectionConverters.asJava(node.metrics())) {
          for (String name : names) {
            if (metric.name().equals(name)) {
              found.put(
                  name,
                  store
                      .executionMetrics(execution.executionId())
                      .get(metric.accumulatorId())
                      .getOrElse(() -> ""));
            }
          }
        }
      }
      if (found.size() == names.length) {
        latest = execution.executionId();
        out = found;
      }
    }
    return out;
  }

  /** The number in a metric's text: {@code 12} of {@code 12 ms}. */
  public static long number(String shown) {
    return Long.parseLong(shown.replaceAll("[^0-9-]", ""));
  }

  /**
   * The named metric of each node of the latest SQL execution that shows it, as the SQL tab shows
   * it, by the node's description (a scan's holds its SQL): one entry per scan node, in no order.
   */
  public static Map<String, String> byNode(SparkSession spark, String name)
      throws java.util.concurrent.TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    SQLAppStatusStore store = spark.sharedState().statusStore();
    Map<String, String> out = new HashMap<>();
    long latest = -1;
    for (SQLExecutionUIData execution : CollectionConverters.asJava(store.executionsList())) {
      if (execution.executionId() < latest) {
        continue;
      }
      Map<String, String> found = new HashMap<>();
      for (SparkPlanGraphNode node :
          CollectionConverters.asJava(store.planGraph(execution.executionId()).allNodes())) {
        for (var metric : CollectionConverters.asJava(node.metrics())) {
          if (metric.name().equals(name)) {
            found.put(
                node.desc(),
                store
                    .executionMetrics(execution.executionId())
                    .get(metric.accumulatorId())
                    .getOrElse(() -> ""));
          }
        }
      }
      if (!found.isEmpty()) {
        latest = execution.executionId();
        out = found;
      }
    }
    return out;
  }
}
