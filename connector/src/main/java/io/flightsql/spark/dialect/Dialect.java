package io.flightsql.spark.dialect;

import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.types.UnsupportedSparkTypeException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The SQL one family of servers speaks, as far as the connector writes it: quoted identifiers,
 * literals ({@link Literals}), the clauses that compare, match, order, limit and skip rows, the
 * column types of a {@code CREATE TABLE} and the statements around a write. Each server family is
 * one subclass, as Spark's {@code JdbcDialect}s are; this class holds what they share, which is
 * ANSI SQL. Reads, writes and the catalog choose a dialect by one rule ({@link Dialects#resolve}),
 * which also says how sure that choice is ({@link ResolvedDialect}).
 *
 * <p>What a dialect cannot write so that the server computes exactly what Spark would, it answers
 * empty for, and the caller leaves that work to Spark. This is the only place where the connector
 * quotes an identifier: between the quote characters, with each quote character inside doubled; a
 * name holding a NUL or a lone UTF-16 surrogate is not written at all.
 *
 * <p>Immutable and Serializable: chosen on the driver and shipped with reads and writes.
 */
public abstract class Dialect implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String quote;

  /**
   * @param serverQuote the server's identifier quote (GetSqlInfo SQL_IDENTIFIER_QUOTE_CHAR), or
   *     null or empty when it did not say
   * @param ownQuote the quote this dialect uses when the server did not say
   */
  protected Dialect(String serverQuote, String ownQuote) {
    this.quote = serverQuote == null || serverQuote.isEmpty() ? ownQuote : serverQuote;
  }

  /** The value of option {@code dialect} that names this dialect. */
  public abstract String name();

  /** The characters that quote identifiers. */
  public final String quote() {
    return quote;
  }

  /** An identifier between quotes, or empty for one that cannot be written safely. */
  public final Optional<String> identifier(String name) {
    if (name == null || !safeText(name) || quote.indexOf('\0') >= 0) {
      return Optional.empty();
    }
    return Optional.of(quote + name.replace(quote, quote + quote) + quote);
  }

  /**
   * An identifier between quotes, for statements that cannot leave it out.
   *
   * @throws IllegalArgumentException naming the identifier when it cannot be written safely
   */
  public final String quoted(String name) {
    return identifier(name)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "The name '"
                        + name
                        + "' holds a NUL character or a lone UTF-16 surrogate, which cannot be"
                        + " written in SQL; rename it"));
  }

  /** A table's qualified name, each part quoted. */
  public final String table(TableRef table) {
    StringBuilder out = new StringBuilder();
    if (table.catalog() != null) {
      out.append(quoted(table.catalog())).append('.');
    }
    if (table.schema() != null) {
      out.append(quoted(table.schema())).append('.');
    }
    return out.append(quoted(table.name())).toString();
  }

  /**
   * A literal of Spark type {@code type} holding {@code value} in Spark's internal form, or empty
   * when this dialect cannot write it so that the server compares it exactly as Spark does.
   *
   * @see Literals#of
   */
  public final Optional<String> literal(Object value, DataType type) {
    return Literals.of(this, value, type);
  }

  /** A string literal, or empty when the string cannot be written safely in this dialect. */
  public final Optional<String> stringLiteral(String s) {
    if (!safeText(s) || s.length() > longestString()) {
      return Optional.empty();
    }
    return quoteString(s);
  }

  /**
   * A string between single quotes, each quote inside doubled; empty for a string with a backslash
   * unless {@link #backslashIsPlain()}.
   */
  protected Optional<String> quoteString(String s) {
    if (s.indexOf('\\') >= 0 && !backslashIsPlain()) {
      return Optional.empty();
    }
    return Optional.of("'" + s.replace("'", "''") + "'");
  }

  /**
   * Whether this dialect reads a backslash in a string literal as itself. A server of unknown
   * dialect might not, so the default is no.
   */
  protected boolean backslashIsPlain() {
    return false;
  }

  /** The longest string constant the server takes. */
  protected int longestString() {
    return Integer.MAX_VALUE;
  }

  /** {@code TRUE} or {@code FALSE}. */
  protected Optional<String> booleanLiteral(boolean b) {
    return Optional.of(b ? "TRUE" : "FALSE");
  }

  /**
   * A REAL literal: a REAL compares exactly with a REAL, while as a double the column would be
   * widened and 0.1f would not equal 0.1.
   */
  protected Optional<String> floatLiteral(float f) {
    return doubleLiteral(f).map(d -> "CAST(" + d + " AS REAL)");
  }

  /** An approximate (DOUBLE) literal; NaN and the infinities have none. */
  protected Optional<String> doubleLiteral(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return Optional.empty();
    }
    String text = Double.toString(d);
    // The exponent makes it an approximate literal; 0.1 alone is a DECIMAL in many SQLs.
    return Optional.of(text.indexOf('E') >= 0 ? text : text + "E0");
  }

  /** An exact numeric literal of {@code precision} digits. */
  protected Optional<String> decimalLiteral(String plainText, int precision) {
    // A literal such as -5 followed by another minus would read as a comment ("--").
    return Optional.of(plainText.startsWith("-") ? "(" + plainText + ")" : plainText);
  }

  /** A binary literal of upper-case hex digits. */
  protected Optional<String> binaryLiteral(String hex) {
    return Optional.of("X'" + hex + "'");
  }

  /** A date literal of a Gregorian date of years 1 to 9999, {@code yyyy-MM-dd}. */
  protected Optional<String> dateLiteral(String date, int year) {
    return Optional.of("DATE '" + date + "'");
  }

  /** A timestamp literal without a zone, {@code yyyy-MM-dd HH:mm:ss.SSSSSS}, years 1 to 9999. */
  protected Optional<String> timestampLiteral(String timestamp, int year) {
    return Optional.of("TIMESTAMP '" + timestamp + "'");
  }

  /**
   * A TIMESTAMP WITH TIME ZONE literal of a UTC instant, written with offset +00:00 so that the
   * server compares the same instant whatever its own or Spark's session time zone.
   */
  protected Optional<String> zonedTimestampLiteral(String utcTimestamp, int year) {
    return Optional.of("TIMESTAMP WITH TIME ZONE '" + utcTimestamp + "+00:00'");
  }

  /**
   * Whether servers of this dialect compare strings as Spark does, by default: by their UTF-8 bytes
   * (code points), case and trailing spaces counting. Where they do, comparisons, ranges, MIN/MAX,
   * ordering and grouping of strings may be pushed when the dialect is the server's (named by the
   * user or by the server's name); otherwise a probe query decides (see {@code
   * read.PushdownProbes#stringsCompareAsInSpark}). A server of unknown dialect might use any
   * collation, so the default is no.
   */
  public boolean comparesStringsAsSpark() {
    return false;
  }

  /**
   * Whether servers of this dialect are known to compare strings otherwise than Spark: then no
   * probe is needed to know that string columns are not compared on the server.
   */
  public boolean comparesStringsOtherwise() {
    return false;
  }

  /**
   * A condition true where {@code column} starts with, ends with or contains {@code text}, as
   * Spark's STARTS_WITH, ENDS_WITH and CONTAINS: case-sensitive, NULL where the column is NULL.
   */
  public Optional<String> stringMatch(String column, String function, String text) {
    return LikePatterns.of(function, text)
        .flatMap(this::stringLiteral)
        .map(p -> "(" + column + " LIKE " + p + " ESCAPE '" + LikePatterns.ESCAPE + "')");
  }

  /** Null-safe equality, as Spark's {@code <=>}: true or false, never NULL. */
  public String nullSafeEqual(String left, String right) {
    // Two-valued on purpose: under a NOT, a NULL would drop rows that Spark keeps.
    return "(("
        + left
        + " IS NULL AND "
        + right
        + " IS NULL) OR ("
        + left
        + " IS NOT NULL AND "
        + right
        + " IS NOT NULL AND "
        + left
        + " = "
        + right
        + "))";
  }

  /**
   * The clause that keeps {@code limit} rows (none when negative) after skipping {@code offset}
   * (none when 0), placed after ORDER BY; empty when this dialect cannot write it.
   */
  public Optional<String> limitOffset(int limit, int offset) {
    if (limit == 0 || offset < 0) {
      return Optional.empty();
    }
    StringBuilder out = new StringBuilder();
    if (limit > 0) {
      out.append("LIMIT ").append(limit);
    } else if (offset > 0) {
      unlimited().ifPresent(all -> out.append("LIMIT ").append(all));
    }
    if (offset > 0) {
      out.append(out.length() > 0 ? " " : "").append("OFFSET ").append(offset);
    }
    return Optional.of(out.toString());
  }

  /** The LIMIT that means "no limit", for servers that have OFFSET only after a LIMIT. */
  protected Optional<String> unlimited() {
    return Optional.empty();
  }

  /** {@code ORDER BY} item for a column, or empty when the dialect cannot place NULLs as asked. */
  public Optional<String> orderItem(String column, boolean ascending, boolean nullsFirst) {
    return Optional.of(
        column + (ascending ? " ASC" : " DESC") + (nullsFirst ? " NULLS FIRST" : " NULLS LAST"));
  }

  /**
   * The clause that samples a table, placed after its name: each row kept with probability {@code
   * fraction} (above 0, at most 1), independently of the others, as Spark's {@code
   * sample(fraction)} keeps rows; {@code seed} makes the choice repeatable where the server can.
   * Empty where the dialect has no such clause, or its clause samples otherwise (blocks of rows, a
   * fixed count): Spark samples then.
   */
  public Optional<String> tableSample(double fraction, long seed) {
    return Optional.empty();
  }

  /** A sampling percentage, {@code 0 < fraction <= 1}, as plain decimal text: {@code 12.5}. */
  protected static String percent(double fraction) {
    return BigDecimal.valueOf(fraction).movePointRight(2).stripTrailingZeros().toPlainString();
  }

  /**
   * A seed the sampling clauses of servers take: a non-negative 32-bit integer (DuckDB's largest is
   * 2147483647; a sign has no place in Spark SQL's).
   */
  protected static long sampleSeed(long seed) {
    return Math.floorMod(seed, (long) Integer.MAX_VALUE);
  }

  /**
   * The relation of a query: {@code (<query>) AS <alias>}. The line break ends a trailing {@code
   * --} comment of the query before the closing parenthesis.
   */
  public final String subquery(String query, String alias) {
    return "(" + query + "\n) AS " + quoted(alias);
  }

  /**
   * The SQL type of a column.
   *
   * @throws UnsupportedSparkTypeException for a type this dialect cannot create, naming the column
   */
  public String columnType(DataType type, String path) {
    String sql = typeName(type);
    if (sql == null) {
      throw cannotCreate(type, path);
    }
    return sql;
  }

  /** The SQL type of a top-level column of Spark type {@code type}, or null when there is none. */
  protected String typeName(DataType type) {
    return StandardTypes.of(type);
  }

  /** The type a CAST names for Spark type {@code type}; empty where this dialect has none. */
  public Optional<String> castType(DataType type) {
    return Optional.ofNullable(typeName(type));
  }

  /** Whether SUM over {@code type} overflows as in Spark: fails for BIGINT, infinite for DOUBLE. */
  public boolean sumOverflowsAsSpark(DataType type) {
    return false;
  }

  /** Whether MIN and MAX over FLOAT and DOUBLE give Spark's answer, infinities included. */
  public boolean minMaxOfFloatingAsSpark() {
    return true;
  }

  /** {@code CREATE TABLE} for a DataFrame's schema. */
  public final String createTable(TableRef table, StructType schema) {
    StringBuilder sql = new StringBuilder("CREATE TABLE ").append(table(table)).append(" (");
    StructField[] fields = schema.fields();
    for (int i = 0; i < fields.length; i++) {
      sql.append(i > 0 ? ", " : "")
          .append(quoted(fields[i].name()))
          .append(' ')
          .append(columnType(fields[i].dataType(), fields[i].name()));
      if (!fields[i].nullable()) {
        sql.append(" NOT NULL");
      }
    }
    return sql.append(')').toString();
  }

  /** {@code INSERT INTO t (c1, ...) VALUES (?, ...)}, the statement a prepared write binds. */
  public final String insert(TableRef table, StructType schema) {
    StringBuilder marks = new StringBuilder();
    for (int i = 0; i < schema.size(); i++) {
      marks.append(i > 0 ? ", ?" : "?");
    }
    return "INSERT INTO " + table(table) + " (" + columnList(schema) + ") VALUES (" + marks + ")";
  }

  /** Copies every row of {@code source} into {@code target}, column by column. */
  public final String insertSelect(TableRef target, TableRef source, StructType schema) {
    String columns = columnList(schema);
    return "INSERT INTO "
        + table(target)
        + " ("
        + columns
        + ") SELECT "
        + columns
        + " FROM "
        + table(source);
  }

  public final String deleteAll(TableRef table) {
    return "DELETE FROM " + table(table);
  }

  public final String dropTable(TableRef table) {
    return "DROP TABLE " + table(table);
  }

  /**
   * The statement that renames {@code table} to {@code newName} in the same schema, or empty where
   * the dialect knows none: SQL has no standard one.
   */
  public Optional<String> renameTable(TableRef table, String newName) {
    return Optional.empty();
  }

  /**
   * A query whose one row says where the server looks for a table named without its schema: the
   * current catalog and schema (two columns), or the current schema alone (one column); empty where
   * the dialect knows none. Only a dialect the user or the server's name established is asked.
   */
  public Optional<String> currentSchemaQuery() {
    return Optional.empty();
  }

  private String columnList(StructType schema) {
    StringBuilder columns = new StringBuilder();
    for (StructField field : schema.fields()) {
      columns.append(columns.length() > 0 ? ", " : "").append(quoted(field.name()));
    }
    return columns.toString();
  }

  /** The error for a column type this dialect cannot create. */
  protected final UnsupportedSparkTypeException cannotCreate(DataType type, String path) {
    return new UnsupportedSparkTypeException(
        "Column '"
            + path
            + "' has Spark type "
            + type.simpleString()
            + ", for which spark-flightsql knows no column type in dialect '"
            + name()
            + "'. Create the table yourself and write with mode 'append', cast the column, or"
            + " choose another 'dialect'. See docs/writing.md.");
  }

  /**
   * Whether text can travel inside quotes: no NUL (C-based servers end the statement there) and no
   * lone surrogate (it has no UTF-8 form, so the server would see another string).
   */
  static boolean safeText(String s) {
    return s.indexOf('\0') < 0 && StandardCharsets.UTF_8.newEncoder().canEncode(s);
  }

  @Override
  public final boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && ((Dialect) o).quote.equals(quote);
  }

  @Override
  public final int hashCode() {
    return Objects.hash(getClass().getName(), quote);
  }

  @Override
  public final String toString() {
    return name() + " (identifiers quoted with " + quote + ")";
  }
}
