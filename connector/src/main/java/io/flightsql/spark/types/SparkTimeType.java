package io.flightsql.spark.types;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.TimeType;

/**
 * Spark's TIME type, which only Spark 4.1 and later have. Only its nested holder names {@link
 * TimeType}, and it is only called after {@link #AVAILABLE} said the class exists, so that the
 * connector still loads on a Spark without it.
 */
final class SparkTimeType {
  /** Whether the running Spark has a TIME type. */
  static final boolean AVAILABLE = exists();

  /** The most fractional digits Spark's TIME keeps: microseconds. */
  static final int MAX_PRECISION = 6;

  private SparkTimeType() {}

  private static boolean exists() {
    try {
      Class.forName(
          "org.apache.spark.sql.types.TimeType", false, SparkTimeType.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * The setting without which Spark refuses TIME columns in a query ({@code
   * UNSUPPORTED_TIME_TYPE}).
   */
  static final String ENABLED_CONF = "spark.sql.timeType.enabled";

  /** Whether the running Spark has a TIME type and the active session allows it. */
  static boolean enabled() {
    return AVAILABLE
        && Boolean.parseBoolean(
            org.apache.spark.sql.internal.SQLConf.get()
                .getConfString(ENABLED_CONF, "false")
                .trim());
  }

  /** TIME with this many fractional digits of a second (0 to 6). */
  static DataType of(int precision) {
    return Holder.of(precision);
  }

  static boolean isTime(DataType type) {
    return AVAILABLE && Holder.isTime(type);
  }

  /** The precision of a TIME type. */
  static int precision(DataType type) {
    return Holder.precision(type);
  }

  /**
   * The only code that names {@link TimeType}. A nested class is loaded and verified on first use,
   * which happens only where the class exists.
   */
  private static final class Holder {
    static DataType of(int precision) {
      return TimeType.apply(precision);
    }

    static boolean isTime(DataType type) {
      return type instanceof TimeType;
    }

    static int precision(DataType type) {
      return ((TimeType) type).precision();
    }
  }
}
