package io.flightsql.spark.types;

/** A column whose Arrow type the connector cannot read (yet). Raised while planning, before any task. */
public class UnsupportedArrowTypeException extends UnsupportedOperationException {
  private static final long serialVersionUID = 1L;

  public UnsupportedArrowTypeException(String message) {
    super(message);
  }
}
