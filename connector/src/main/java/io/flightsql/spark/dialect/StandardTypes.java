package io.flightsql.spark.dialect;

import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * The SQL standard's column type for each top-level Spark type, which every dialect starts from
 * when it creates a table and changes where its server names a type otherwise.
 */
final class StandardTypes {
  private StandardTypes() {}

  /** The type's standard name, or null for a Spark type SQL has no column type for. */
  static String of(DataType type) {
    if (type instanceof BooleanType) {
      return "BOOLEAN";
    }
    if (type instanceof ByteType || type instanceof ShortType) {
      return "SMALLINT";
    }
    if (type instanceof IntegerType) {
      return "INTEGER";
    }
    if (type instanceof LongType) {
      return "BIGINT";
    }
    if (type instanceof FloatType) {
      return "REAL";
    }
    if (type instanceof DoubleType) {
      return "DOUBLE PRECISION";
    }
    if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      return "DECIMAL(" + decimal.precision() + ", " + decimal.scale() + ")";
    }
    if (type instanceof StringType) {
      return "VARCHAR";
    }
    if (type instanceof BinaryType) {
      return "VARBINARY";
    }
    if (type instanceof DateType) {
      return "DATE";
    }
    if (type instanceof TimestampType) {
      return "TIMESTAMP WITH TIME ZONE";
    }
    if (type instanceof TimestampNTZType) {
      return "TIMESTAMP";
    }
    return null;
  }
}
