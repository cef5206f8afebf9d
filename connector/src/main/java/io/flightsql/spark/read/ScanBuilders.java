package io.flightsql.spark.read;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.ResolvedDialect;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.types.StructType;

/**
 * Makes the scan builders of reads: a {@code JoinPushdownScanBuilder} where the running Spark has
 * join pushdown (Spark 4.1's {@code SupportsPushDownJoin}), else a plain {@link
 * FlightSqlScanBuilder}. The join builder names Spark 4.1 types, so it is loaded by name, and only
 * on a Spark that has them; the build compiles every other class against Spark 3.5 without it
 * (module {@code compat/spark-3.5}), which keeps this the only door to it.
 */
final class ScanBuilders {
  private static final String JOIN_INTERFACE =
      "org.apache.spark.sql.connector.read.SupportsPushDownJoin";
  private static final String JOIN_FACTORY =
      "io.flightsql.spark.read.JoinPushdownScanBuilder$Factory";

  /** How a scan builder is made. */
  interface Factory {
    FlightSqlScanBuilder create(
        StructType schema,
        FlightSqlReadConfig config,
        Set<String> knownComparable,
        AtomicReference<ResolvedDialect> knownDialect);
  }

  /** The builders of a Spark without join pushdown. */
  private static final Factory PLAIN = FlightSqlScanBuilder::new;

  private static final Factory FACTORY = load();

  private ScanBuilders() {}

  /** A scan builder for a read of {@code schema}. */
  static FlightSqlScanBuilder create(
      StructType schema,
      FlightSqlReadConfig config,
      Set<String> knownComparable,
      AtomicReference<ResolvedDialect> knownDialect) {
    return FACTORY.create(schema, config, knownComparable, knownDialect);
  }

  private static Factory load() {
    ClassLoader loader = ScanBuilders.class.getClassLoader();
    try {
      Class.forName(JOIN_INTERFACE, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      return PLAIN;
    }
    try {
      return Class.forName(JOIN_FACTORY, true, loader)
          .asSubclass(Factory.class)
          .getDeclaredConstructor()
          .newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          JOIN_FACTORY + " is missing or broken in the connector's jar", e);
    }
  }
}
