package io.flightsql.spark.dialect;

/**
 * ANSI SQL, for servers whose dialect is not known: double-quoted identifiers (unless the server
 * names another quote), standard literals and types, and nothing that depends on how a server reads
 * backslashes.
 */
final class AnsiDialect extends Dialect {
  private static final long serialVersionUID = 1L;

  static final String NAME = "ansi";

  AnsiDialect(String serverQuote) {
    super(serverQuote, "\"");
  }

  @Override
  public String name() {
    return NAME;
  }
}
