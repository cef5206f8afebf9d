package io.flightsql.spark;

import io.flightsql.spark.client.transport.Warmup;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * Starts the connector's warm-up ({@link Warmup}) when Spark starts, on the driver and on every
 * executor, instead of at the connector's first use:
 *
 * <pre>
 * spark.plugins=io.flightsql.spark.FlightSqlPlugin
 * </pre>
 *
 * <p>The first read of a JVM otherwise loads a few thousand classes (Arrow, gRPC, Netty, protobuf
 * and the connector's own) while the user waits; with the plugin they are loaded on a daemon thread
 * while Spark itself starts. The plugin does nothing else: it opens no connection, reads no option
 * and never fails Spark's start (a warm-up that fails is logged at debug level and the classes are
 * loaded where they are used). {@code spark_flightsql.configure()} adds it for PySpark users.
 */
public final class FlightSqlPlugin implements SparkPlugin {
  public FlightSqlPlugin() {}

  @Override
  public DriverPlugin driverPlugin() {
    return new DriverPlugin() {
      @Override
      public Map<String, String> init(SparkContext sc, PluginContext context) {
        Warmup.start();
        return Map.of();
      }
    };
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new ExecutorPlugin() {
      @Override
      public void init(PluginContext context, Map<String, String> extraConf) {
        Warmup.start();
      }
    };
  }
}
