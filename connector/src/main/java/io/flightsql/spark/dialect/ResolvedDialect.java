package io.flightsql.spark.dialect;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;

/**
 * What choosing a server's dialect established ({@link Dialects#resolve}): the dialect, and how its
 * identifier quote came to be known. From that follows whether the dialect's SQL beyond quoting is
 * a guess, and whether anything that names a column may be sent at all. Immutable and Serializable;
 * made on the driver, once per server and read or catalog.
 */
public final class ResolvedDialect implements Serializable {
  private static final long serialVersionUID = 1L;

  /** How the dialect's quote was established, from the surest source to none. */
  public enum Quoting {
    /** Option {@code dialect} named the dialect: the user vouches for its SQL. */
    NAMED_BY_USER("option 'dialect'"),
    /** The server's name or version (GetSqlInfo) named the dialect. */
    SERVER_NAME("the server's name"),
    /** GetSqlInfo SQL_IDENTIFIER_QUOTE_CHAR said it, but nothing named the dialect. */
    SQL_INFO("GetSqlInfo SQL_IDENTIFIER_QUOTE_CHAR"),
    /** A probe query found it, where the server said nothing. */
    PROBE("a probe query"),
    /** Nothing did: a quoted name could be read as a string, so none may be sent. */
    UNKNOWN("nothing");

    private final String source;

    Quoting(String source) {
      this.source = source;
    }

    /** What established it, for messages. */
    public String source() {
      return source;
    }
  }

  private final Dialect dialect;
  private final Quoting quoting;

  ResolvedDialect(Dialect dialect, Quoting quoting) {
    this.dialect = Objects.requireNonNull(dialect);
    this.quoting = Objects.requireNonNull(quoting);
  }

  public Dialect dialect() {
    return dialect;
  }

  public Quoting quoting() {
    return quoting;
  }

  /**
   * Whether the quote is established. Where it is not, a quoted name could be read as a string, so
   * nothing naming a column may be sent.
   */
  public boolean quotingKnown() {
    return quoting != Quoting.UNKNOWN;
  }

  /**
   * Whether the dialect's SQL beyond its quoting is a guess: neither the user nor the server's name
   * chose it. What is pushed in it is then first tried on the server with a query that returns no
   * row, and kept only where the server takes it.
   */
  public boolean sqlGuessed() {
    return quoting != Quoting.NAMED_BY_USER && quoting != Quoting.SERVER_NAME;
  }

  /**
   * The query that asks the server where it looks for tables named without their schema ({@link
   * Dialect#currentSchemaQuery()}), where the dialect is established rather than guessed: a guessed
   * dialect's query could fail, or answer something else, on the server.
   */
  public Optional<String> currentSchemaQuery() {
    return sqlGuessed() ? Optional.empty() : dialect.currentSchemaQuery();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ResolvedDialect
        && ((ResolvedDialect) o).dialect.equals(dialect)
        && ((ResolvedDialect) o).quoting == quoting;
  }

  @Override
  public int hashCode() {
    return Objects.hash(dialect, quoting);
  }

  /** E.g. {@code ansi (identifiers quoted with ", established by a probe query; SQL guessed)}. */
  @Override
  public String toString() {
    return dialect.name()
        + " (identifiers quoted with "
        + dialect.quote()
        + (quotingKnown()
            ? ", established by " + quoting.source()
            : ", a guess: nothing naming a column is pushed")
        + (sqlGuessed() ? "; SQL guessed, each pushed step checked by the server" : "")
        + ")";
  }
}
