package io.flightsql.spark.types;

/**
 * A value that Spark cannot hold without changing it, met while a task reads, when the user asked
 * for an error rather than a silent change. The message names the column, the value and the option
 * that allows the change.
 */
public class ArrowValueException extends ArithmeticException {
  private static final long serialVersionUID = 1L;

  public ArrowValueException(String message) {
    super(message);
  }
}
