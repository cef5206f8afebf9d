package io.flightsql.spark.testing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
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
    Map<String, String> out = new HashMap<>();
    for (Map<String, Map<String, String>> execution : executions(spark)) {
      Map<String, String> found = new HashMap<>();
      execution.forEach(
          (node, metrics) -> {
            for (String name : names) {
              if (metrics.containsKey(name)) {
                found.put(name, metrics.get(name));
              }
            }
          });
      if (found.size() == names.length) {
        out = found;
      }
    }
    return out;
  }

  /**
   * The named metric of each node of the latest SQL execution that shows it, as the SQL tab shows
   * it, by the node's description (a scan's holds its SQL): one entry per scan node, in no order.
   */
  public static Map<String, String> byNode(SparkSession spark, String name)
      throws java.util.concurrent.TimeoutException {
    Map<String, String> out = new HashMap<>();
    for (Map<String, Map<String, String>> execution : executions(spark)) {
      Map<String, String> found = new HashMap<>();
      execution.forEach(
          (node, metrics) -> {
            if (metrics.containsKey(name)) {
              found.put(node, metrics.get(name));
            }
          });
      if (!found.isEmpty()) {
        out = found;
      }
    }
    return out;
  }

  /**
   * Every SQL execution, oldest first, as the metrics the SQL tab shows on each node (by the node's
   * description, then the metric's name).
   */
  private static List<Map<String, Map<String, String>>> executions(SparkSession spark)
      throws java.util.concurrent.TimeoutException {
    // The store is fed by the listener bus: let it take in the end of the job just run.
    spark.sparkContext().listenerBus().waitUntilEmpty();
    SQLAppStatusStore store = spark.sharedState().statusStore();
    List<SQLExecutionUIData> all =
        new ArrayList<>(CollectionConverters.asJava(store.executionsList()));
    all.sort(Comparator.comparingLong(SQLExecutionUIData::executionId));
    List<Map<String, Map<String, String>>> executions = new ArrayList<>();
    for (SQLExecutionUIData execution : all) {
      long id = execution.executionId();
      Map<String, Map<String, String>> nodes = new HashMap<>();
      for (SparkPlanGraphNode node : CollectionConverters.asJava(store.planGraph(id).allNodes())) {
        for (var metric : CollectionConverters.asJava(node.metrics())) {
          nodes
              .computeIfAbsent(node.desc(), d -> new HashMap<>())
              .put(
                  metric.name(),
                  store.executionMetrics(id).get(metric.accumulatorId()).getOrElse(() -> ""));
        }
      }
      executions.add(nodes);
    }
    return executions;
  }

  /** The number in a metric's text: {@code 12} of {@code 12 ms}. */
  public static long number(String shown) {
    return Long.parseLong(shown.replaceAll("[^0-9-]", ""));
  }
}
