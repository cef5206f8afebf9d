package io.flightsql.spark.types;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.TimeType;

/**
 * The only class of the connector that names Spark 4.1's {@link TimeType}. {@link SparkTimeType}
 * loads it by name, and only on a Spark that has TIME; nothing else refers to it, so the build's
 * Spark 3.5 compile leaves it out.
 */
final class TimeTypeOperations implements SparkTimeType.Operations {
  TimeTypeOperations() {}

  @Override
  public DataType of(int precision) {
    return TimeType.apply(precision);
  }

  @Override
  public boolean isTime(DataType type) {
    return type instanceof TimeType;
  }

  @Override
  public int precision(DataType type) {
    return ((TimeType) type).precision();
  }
}
