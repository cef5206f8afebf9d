package io.flightsql.spark.sql;

import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
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
 * The SQL the connector writes for a server when it reads: quoted identifiers, literals, and the
 * clauses that limit and skip rows. Each method answers empty for what this dialect cannot write so
 * that the server computes exactly what Spark would; the caller then leaves that work to Spark.
 * Immutable and Serializable (it is chosen on the driver).
 *
 * <p>The rules that keep values from being read as SQL: a string literal is written between single
 * quotes with each single quote doubled, and never with a backslash escape; a string that holds a
 * NUL, a lone UTF-16 surrogate, or (where the dialect may read backslashes as escapes) a backslash
 * is not written at all. An identifier is written between the server's quote characters with each
 * quote character inside doubled; one holding a NUL or a lone surrogate is not written.
 */
public final class QueryDialect implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The escape character of LIKE patterns; not a backslash, which some servers treat as one. */
  static final char LIKE_ESCAPE = '!';

  /** Derby's longest string constant. */
  private static final int DERBY_MAX_STRING = 32_672;

  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("uuuu-MM-dd");
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

  private final SqlDialect kind;
  private final String quote;

  private QueryDialect(SqlDialect kind, String quote) {
    this.kind = Objects.requireNonNull(kind);
    this.quote = quote;
  }

  /**
   * The dialect {@code kind} with identifiers quoted by {@code quote} (the server's
   * SQL_IDENTIFIER_QUOTE_CHAR), or by the dialect's own quote when the server did not say.
   */
  public static QueryDialect of(SqlDialect kind, String quote) {
    String q = quote == null || quote.isEmpty() ? defaultQuote(kind) : quote;
    return new QueryDialect(kind, q);
  }

  /** The quote character a dialect uses when the server does not name one. */
  public static String defaultQuote(SqlDialect kind) {
    return kind == SqlDialect.MYSQL ? "`" : "\"";
  }

  public SqlDialect kind() {
    return kind;
  }

  public String quote() {
    return quote;
  }

  /** The option value that names this dialect. */
  public String name() {
    return kind.optionValue();
  }

  /** An identifier between quotes, or empty for one that cannot be written safely. */
  public Optional<String> identifier(String name) {
    if (name == null || !safeText(name) || quote.indexOf('\0') >= 0) {
      return Optional.empty();
    }
    return Optional.of(quote + name.replace(quote, quote + quote) + quote);
  }

  /**
   * A literal of Spark type {@code type} holding {@code value} (in Spark's internal form: {@code
   * UTF8String} or {@code String}, {@link Decimal} or {@link BigDecimal}, days since the epoch for
   * a date, microseconds since the epoch for timestamps, {@code byte[]} for binary), or empty when
   * this dialect cannot write it so that the server compares it exactly as Spark does. A null value
   * is {@code NULL}.
   */
  public Optional<String> literal(Object value, DataType type) {
    if (value == null) {
      return Optional.of("NULL");
    }
    if (type instanceof BooleanType) {
      boolean b = (Boolean) value;
      if (kind == SqlDialect.SQLITE) {
        return Optional.of(b ? "1" : "0");
      }
      return Optional.of(b ? "TRUE" : "FALSE");
    }
    if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType) {
      return Optional.of(Long.toString(((Number) value).longValue()));
    }
    if (type instanceof LongType) {
      long v = ((Number) value).longValue();
      // The literal 9223372036854775808 overflows BIGINT before the minus sign applies to it.
      return Optional.of(v == Long.MIN_VALUE ? "(-9223372036854775807 - 1)" : Long.toString(v));
    }
    if (type instanceof FloatType) {
      return floatLiteral(((Number) value).floatValue());
    }
    if (type instanceof DoubleType) {
      return doubleLiteral(((Number) value).doubleValue());
    }
    if (type instanceof DecimalType) {
      BigDecimal d =
          value instanceof Decimal ? ((Decimal) value).toJavaBigDecimal() : (BigDecimal) value;
      return decimalLiteral(d);
    }
    if (type instanceof StringType) {
      return stringLiteral(value.toString());
    }
    if (type instanceof BinaryType) {
      return binaryLiteral((byte[]) value);
    }
    if (type instanceof DateType) {
      return dateLiteral(LocalDate.ofEpochDay(((Number) value).longValue()));
    }
    if (type instanceof TimestampNTZType) {
      return timestampLiteral(microsToUtc(((Number) value).longValue()));
    }
    if (type instanceof TimestampType) {
      return zonedTimestampLiteral(microsToUtc(((Number) value).longValue()));
    }
    return Optional.empty();
  }

  /** A string literal, or empty when the string cannot be written safely in this dialect. */
  public Optional<String> stringLiteral(String s) {
    if (!safeText(s)) {
      return Optional.empty();
    }
    if (s.indexOf('\\') >= 0 && !backslashIsPlain()) {
      return Optional.empty();
    }
    if (kind == SqlDialect.DERBY && s.length() > DERBY_MAX_STRING) {
      return Optional.empty();
    }
    return Optional.of("'" + s.replace("'", "''") + "'");
  }

  /**
   * Whether this dialect reads a backslash in a string literal as itself. MySQL's does not (unless
   * NO_BACKSLASH_ESCAPES is set, which the connector cannot know), and a server of unknown dialect
   * might not either.
   */
  private boolean backslashIsPlain() {
    return kind == SqlDialect.DUCKDB || kind == SqlDialect.SQLITE || kind == SqlDialect.DERBY;
  }

  /**
   * A condition true where {@code column} starts with, ends with or contains {@code text}, as
   * Spark's STARTS_WITH, ENDS_WITH and CONTAINS: case-sensitive, NULL where the column is NULL.
   */
  public Optional<String> stringMatch(String column, String function, String text) {
    if (kind == SqlDialect.SQLITE) {
      // SQLite's LIKE ignores the case of ASCII letters: compare positions instead.
      Optional<String> lit = stringLiteral(text);
      if (!lit.isPresent()) {
        return Optional.empty();
      }
      switch (function) {
        case "STARTS_WITH":
          return Optional.of("(instr(" + column + ", " + lit.get() + ") = 1)");
        case "CONTAINS":
          return Optional.of("(instr(" + column + ", " + lit.get() + ") > 0)");
        case "ENDS_WITH":
          return Optional.of(
              "(length("
                  + column
                  + ") >= length("
                  + lit.get()
                  + ") AND substr("
                  + column
                  + ", length("
                  + column
                  + ") - length("
                  + lit.get()
                  + ") + 1) = "
                  + lit.get()
                  + ")");
        default:
          return Optional.empty();
      }
    }
    String escaped = escapeLike(text);
    String pattern;
    switch (function) {
      case "STARTS_WITH":
        pattern = escaped + "%";
        break;
      case "ENDS_WITH":
        pattern = "%" + escaped;
        break;
      case "CONTAINS":
        pattern = "%" + escaped + "%";
        break;
      default:
        return Optional.empty();
    }
    return stringLiteral(pattern)
        .map(p -> "(" + column + " LIKE " + p + " ESCAPE '" + LIKE_ESCAPE + "')");
  }

  /** {@code text} as a LIKE pattern that matches only itself: wildcards and the escape escaped. */
  static String escapeLike(String text) {
    StringBuilder out = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%' || c == '_' || c == LIKE_ESCAPE) {
        out.append(LIKE_ESCAPE);
      }
      out.append(c);
    }
    return out.toString();
  }

  /** Null-safe equality, as Spark's {@code <=>}: true or false, never NULL. */
  public String nullSafeEqual(String left, String right) {
    switch (kind) {
      case DUCKDB:
        return "(" + left + " IS NOT DISTINCT FROM " + right + ")";
      case SQLITE:
        return "(" + left + " IS " + right + ")";
      case MYSQL:
        return "(" + left + " <=> " + right + ")";
      default:
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
  }

  /**
   * The clause that keeps {@code limit} rows (none when negative) after skipping {@code offset}
   * (none when 0), placed after ORDER BY; empty when this dialect cannot write it.
   */
  public Optional<String> limitOffset(int limit, int offset) {
    if (limit == 0 || offset < 0) {
      return Optional.empty();
    }
    if (kind == SqlDialect.DERBY) {
      StringBuilder out = new StringBuilder();
      if (offset > 0) {
        out.append("OFFSET ").append(offset).append(" ROWS");
      }
      if (limit > 0) {
        out.append(out.length() > 0 ? " " : "").append("FETCH FIRST ").append(limit);
        out.append(" ROWS ONLY");
      }
      return Optional.of(out.toString());
    }
    StringBuilder out = new StringBuilder();
    if (limit > 0) {
      out.append("LIMIT ").append(limit);
    } else if (offset > 0) {
      // SQLite and MySQL have OFFSET only after a LIMIT; -1 and 2^64-1 mean "no limit" there.
      if (kind == SqlDialect.SQLITE) {
        out.append("LIMIT -1");
      } else if (kind == SqlDialect.MYSQL) {
        out.append("LIMIT 18446744073709551615");
      }
    }
    if (offset > 0) {
      out.append(out.length() > 0 ? " " : "").append("OFFSET ").append(offset);
    }
    return Optional.of(out.toString());
  }

  /**
   * {@code ORDER BY} item for a column, or empty when the dialect cannot place NULLs as asked.
   * MySQL has no NULLS FIRST/LAST; its own placement (first when ascending, last when descending)
   * is Spark's default, so only that is written.
   */
  public Optional<String> orderItem(String column, boolean ascending, boolean nullsFirst) {
    String direction = ascending ? " ASC" : " DESC";
    if (kind == SqlDialect.MYSQL) {
      return ascending == nullsFirst ? Optional.of(column + direction) : Optional.empty();
    }
    return Optional.of(column + direction + (nullsFirst ? " NULLS FIRST" : " NULLS LAST"));
  }

  /**
   * The relation of a query: {@code (<query>) AS <alias>}. The line break ends a trailing {@code
   * --} comment of the query before the closing parenthesis.
   */
  public String subquery(String query, String alias) {
    return "(" + query + "\n) AS " + identifier(alias).orElseThrow(IllegalStateException::new);
  }

  private Optional<String> floatLiteral(float f) {
    if (Float.isNaN(f) || Float.isInfinite(f)) {
      return Optional.empty();
    }
    if (kind == SqlDialect.SQLITE || kind == SqlDialect.MYSQL) {
      // SQLite has no single-precision values, and MySQL's FLOAT columns compare as doubles
      // rounded in ways Spark does not.
      return Optional.empty();
    }
    // A REAL compares exactly with a REAL; as a double literal the column would be widened and
    // 0.1f would not equal 0.1.
    return doubleLiteral(f).map(d -> "CAST(" + d + " AS REAL)");
  }

  private Optional<String> doubleLiteral(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return Optional.empty();
    }
    if (kind == SqlDialect.DERBY && d != 0 && Math.abs(d) < Double.MIN_NORMAL) {
      // Derby refuses subnormal doubles.
      return Optional.empty();
    }
    String text = Double.toString(d);
    // The exponent makes it an approximate (DOUBLE) literal; 0.1 alone is a DECIMAL in many SQLs.
    return Optional.of(text.indexOf('E') >= 0 ? text : text + "E0");
  }

  private Optional<String> decimalLiteral(BigDecimal d) {
    if (kind == SqlDialect.SQLITE) {
      // SQLite holds such values as doubles: an exact decimal comparison is not available.
      return Optional.empty();
    }
    if (kind == SqlDialect.DERBY && d.precision() > 31) {
      return Optional.empty();
    }
    String text = d.toPlainString();
    // A literal such as -5 followed by another minus would read as a comment ("--").
    return Optional.of(d.signum() < 0 ? "(" + text + ")" : text);
  }

  private Optional<String> binaryLiteral(byte[] bytes) {
    StringBuilder hex = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) {
      hex.append(String.format(Locale.ROOT, "%02X", b & 0xff));
    }
    if (kind == SqlDialect.DUCKDB) {
      // DuckDB has no X'..' literal; from_hex gives a BLOB.
      return Optional.of("from_hex('" + hex + "')");
    }
    return Optional.of("X'" + hex + "'");
  }

  private Optional<String> dateLiteral(LocalDate date) {
    if (kind == SqlDialect.SQLITE || date.getYear() < 1 || date.getYear() > 9999) {
      // SQLite has no DATE type: dates are text in whatever form they were written.
      return Optional.empty();
    }
    if (kind == SqlDialect.DERBY) {
      // Derby's dates are java.sql dates: Julian before 1582, where Spark's are Gregorian.
      return date.getYear() < 1583
          ? Optional.empty()
          : Optional.of("DATE('" + DATE.format(date) + "')");
    }
    return Optional.of("DATE '" + DATE.format(date) + "'");
  }

  private Optional<String> timestampLiteral(LocalDateTime t) {
    if (kind == SqlDialect.SQLITE || t.getYear() < 1 || t.getYear() > 9999) {
      return Optional.empty();
    }
    if (kind == SqlDialect.DERBY) {
      return t.getYear() < 1583
          ? Optional.empty()
          : Optional.of("TIMESTAMP('" + TIMESTAMP.format(t) + "')");
    }
    return Optional.of("TIMESTAMP '" + TIMESTAMP.format(t) + "'");
  }

  /**
   * A TIMESTAMP WITH TIME ZONE literal of a UTC instant, written with offset +00:00 so that the
   * server compares the same instant whatever its own or Spark's session time zone.
   */
  private Optional<String> zonedTimestampLiteral(LocalDateTime utc) {
    if (utc.getYear() < 1 || utc.getYear() > 9999) {
      return Optional.empty();
    }
    switch (kind) {
      case DUCKDB:
        return Optional.of("TIMESTAMPTZ '" + TIMESTAMP.format(utc) + "+00:00'");
      case ANSI:
        return Optional.of("TIMESTAMP WITH TIME ZONE '" + TIMESTAMP.format(utc) + "+00:00'");
      default:
        // Derby and SQLite have no zoned timestamps; MySQL's depend on the session time zone.
        return Optional.empty();
    }
  }

  private static LocalDateTime microsToUtc(long micros) {
    long seconds = Math.floorDiv(micros, 1_000_000L);
    long nanos = Math.floorMod(micros, 1_000_000L) * 1000L;
    return LocalDateTime.ofInstant(Instant.ofEpochSecond(seconds, nanos), ZoneOffset.UTC);
  }

  /**
   * Whether text can travel inside quotes: no NUL (C-based servers end the statement there) and no
   * lone surrogate (it has no UTF-8 form, so the server would see another string).
   */
  static boolean safeText(String s) {
    if (s.indexOf('\0') >= 0) {
      return false;
    }
    return StandardCharsets.UTF_8.newEncoder().canEncode(s);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof QueryDialect
        && ((QueryDialect) o).kind == kind
        && ((QueryDialect) o).quote.equals(quote);
  }

  @Override
  public int hashCode() {
    return kind.hashCode() * 31 + quote.hashCode();
  }

  @Override
  public String toString() {
    return name() + " (identifiers quoted with " + quote + ")";
  }
}
