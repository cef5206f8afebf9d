package io.flightsql.spark.types;

/**
 * A column whose Spark type has no Arrow counterpart the connector can send. Raised before any task
 * runs; the message names the column and its type.
 */
public class UnsupportedSparkTypeException extends UnsupportedOperationException {
  private static final long serialVersionUID = 1L;

  public UnsupportedSparkTypeException(String message) {
    super(message);
  }
}
