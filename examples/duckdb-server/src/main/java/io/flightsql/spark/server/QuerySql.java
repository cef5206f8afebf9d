package io.flightsql.spark.server;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SQL text the server wraps around a client's query.
 *
 * <p>Every statement that reads a client's query goes through {@link #subquery}: the schema probe,
 * the row count and each endpoint's stream. Wrapping the query the same way everywhere is what
 * makes the schema announced by GetFlightInfo the schema that DoGet streams (DuckDB renames
 * duplicate column names of a subquery, for instance {@code a, a} becomes {@code a, a_1}).
 */
final class QuerySql {

  /**
   * {@code INSERT [OR REPLACE | OR IGNORE] INTO <target> VALUES (?, ..., ?)}, nothing after it but
   * semicolons and blanks. Group 1 is everything before VALUES, group 2 the target.
   */
  private static final Pattern PLAIN_INSERT =
      Pattern.compile(
          "\\s*(INSERT\\s+(?:OR\\s+(?:REPLACE|IGNORE)\\s+)?INTO\\s+(.+?))\\s*\\bVALUES\\s*"
              + "\\(\\s*\\?(?:\\s*,\\s*\\?)*\\s*\\)[\\s;]*",
          Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

  private QuerySql() {}

  /**
   * The client's query without trailing semicolons and whitespace, which would otherwise end the
   * subquery early.
   *
   * @throws IllegalArgumentException if nothing is left
   */
  static String body(String sql) {
    int end = sql == null ? 0 : sql.length();
    while (end > 0 && (Character.isWhitespace(sql.charAt(end - 1)) || sql.charAt(end - 1) == ';')) {
      end--;
    }
    if (end == 0) {
      throw new IllegalArgumentException("The SQL query is empty");
    }
    return sql.substring(0, end);
  }

  /**
   * {@code SELECT * FROM (<sql>) AS q}. The line breaks keep a trailing {@code --} comment in the
   * client's query from swallowing the closing parenthesis.
   */
  static String subquery(String sql) {
    return "SELECT * FROM (\n" + body(sql) + "\n) AS q";
  }

  /** The query's result schema without computing a single row. */
  static String schemaProbe(String sql) {
    return subquery(sql) + " LIMIT 0";
  }

  /** The number of rows the query returns. */
  static String rowCount(String sql) {
    return "SELECT count(*) FROM (\n" + body(sql) + "\n) AS q";
  }

  /**
   * For a plain {@code INSERT INTO <target> VALUES (?, ..., ?)} with {@code parameters} markers,
   * the text before {@code VALUES}: the statement then runs for a whole batch of parameter rows as
   * {@code <prefix> SELECT * FROM <rows>}. Null for any other statement.
   *
   * <p>The target (a table and perhaps a column list) must hold no string quote, comment, marker or
   * semicolon, and its double quotes must pair up, which rules out a {@code VALUES (?)} that is
   * really inside a string, a quoted name or a comment; such statements take the general path
   * instead, which is slower but just as right.
   */
  static String plainInsertPrefix(String sql, int parameters) {
    Matcher matcher = PLAIN_INSERT.matcher(sql);
    if (parameters < 1 || !matcher.matches()) {
      return null;
    }
    String target = matcher.group(2);
    for (String unsafe : new String[] {"'", "--", "/*", "?", "$", ";"}) {
      if (target.contains(unsafe)) {
        return null;
      }
    }
    if (target.chars().filter(c -> c == '"').count() % 2 != 0) {
      return null;
    }
    String values = sql.substring(matcher.end(1));
    long markers = values.chars().filter(c -> c == '?').count();
    return markers == parameters ? matcher.group(1) : null;
  }

  /** A DuckDB identifier in double quotes, with embedded double quotes doubled. */
  static String quoteIdentifier(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  /** A DuckDB string literal in single quotes, with embedded single quotes doubled. */
  static String quoteLiteral(String text) {
    return '\'' + text.replace("'", "''") + '\'';
  }

  /** {@code "catalog"."schema"."table"}, each part quoted. */
  static String qualifiedName(String catalog, String schema, String table) {
    return quoteIdentifier(catalog) + '.' + quoteIdentifier(schema) + '.' + quoteIdentifier(table);
  }

  /** The first {@code max} characters of {@code sql} on one line, for log lines and messages. */
  static String abbreviate(String sql, int max) {
    String oneLine = sql.replaceAll("\\s+", " ").trim();
    return oneLine.length() <= max ? oneLine : oneLine.substring(0, max) + "...";
  }
}
