package io.flightsql.spark.vector;

/**
 * A record batch that breaks the Arrow format in a way that would make a column read memory it was
 * not given, or a value that is not what its type says. The message names the column, its Arrow
 * type and the check that failed; the reader adds the server and the stream.
 */
public final class MalformedBatchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String column;

  MalformedBatchException(String column, String arrowType, String check) {
    super("column '" + column + "' (Arrow " + arrowType + "): " + check);
    this.column = column;
  }

  /** The column, dotted for nested fields ({@code tags.element}). */
  public String column() {
    return column;
  }
}
