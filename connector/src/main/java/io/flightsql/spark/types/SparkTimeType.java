package io.flightsql.spark.types;

import org.apache.spark.sql.types.DataType;

/**
 * Spark's TIME type, which only Spark 4.1 and later have. This class never names {@code
 * org.apache.spark.sql.types.TimeType}: {@link TimeTypeOperations}, the only class that does, is
 * loaded by name once {@link #AVAILABLE} said the running Spark has TIME, so the connector loads
 * and links on Spark 3.5 and 4.0. The build compiles every other class against Spark 3.5 without
 * that one (module {@code compat/spark-3.5}), which keeps this the only door to TIME.
 */
final class SparkTimeType {
  /** The class that names {@code TimeType}, loaded only on a Spark that has it. */
  private static final String OPERATIONS_CLASS = "io.flightsql.spark.types.TimeTypeOperations";

  /** TIME's operations where the running Spark has it, else null. */
  private static final Operations OPERATIONS = load();

  /** Whether the running Spark has a TIME type. */
  static final boolean AVAILABLE = OPERATIONS != null;

  /** The most fractional digits Spark's TIME keeps: microseconds. */
  static final int MAX_PRECISION = 6;

  /**
   * The setting without which Spark refuses TIME columns in a query ({@code
   * UNSUPPORTED_TIME_TYPE}).
   */
  static final String ENABLED_CONF = "spark.sql.timeType.enabled";

  private SparkTimeType() {}

  /** What only a Spark with TIME can do: implemented by {@link TimeTypeOperations}. */
  interface Operations {
    DataType of(int precision);

    boolean isTime(DataType type);

    int precision(DataType type);
  }

  private static Operations load() {
    ClassLoader loader = SparkTimeType.class.getClassLoader();
    try {
      Class.forName("org.apache.spark.sql.types.TimeType", false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
    try {
      return Class.forName(OPERATIONS_CLASS, true, loader)
          .asSubclass(Operations.class)
          .getDeclaredConstructor()
          .newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          OPERATIONS_CLASS + " is missing or broken in the connector's jar", e);
    }
  }

  /** Whether the running Spark has a TIME type and the active session allows it. */
  static boolean enabled() {
    return AVAILABLE
        && Boolean.parseBoolean(
            org.apache.spark.sql.internal.SQLConf.get()
                .getConfString(ENABLED_CONF, "false")
                .trim());
  }

  /** TIME with this many fractional digits of a second (0 to 6); only where {@link #AVAILABLE}. */
  static DataType of(int precision) {
    if (!AVAILABLE) {
      throw new IllegalStateException("This Spark has no TIME type (Spark 4.1 or newer has it)");
    }
    return OPERATIONS.of(precision);
  }

  static boolean isTime(DataType type) {
    return AVAILABLE && OPERATIONS.isTime(type);
  }

  /** The precision of a TIME type. */
  static int precision(DataType type) {
    return OPERATIONS.precision(type);
  }
}
