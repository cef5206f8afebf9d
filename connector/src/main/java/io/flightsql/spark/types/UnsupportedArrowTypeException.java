package io.flightsql.spark.types;

/**
 * A column whose Arrow type Spark cannot represent. Raised while planning, before any task runs;
 * the message names the column, its Arrow type and what to do instead.
 */
public class UnsupportedArrowTypeException extends UnsupportedOperationException {
  private static final long serialVersionUID = 1L;

  public UnsupportedArrowTypeException(String message) {
    super(message);
  }
}
