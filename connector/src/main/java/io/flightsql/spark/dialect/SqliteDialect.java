package io.flightsql.spark.dialect;

import io.flightsql.spark.client.metadata.TableRef;
import java.util.Optional;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;

/**
 * SQLite, as arrow-go's Flight SQL example serves it. SQLite has no boolean, single-precision,
 * exact decimal, date or timestamp values (they are integers, doubles and text), a LIKE that
 * ignores case, and OFFSET only after a LIMIT.
 */
final class SqliteDialect extends Dialect {
  private static final long serialVersionUID = 1L;

  static final String NAME = "sqlite";

  SqliteDialect(String serverQuote) {
    super(serverQuote, "\"");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  protected boolean backslashIsPlain() {
    return true;
  }

  @Override
  protected Optional<String> booleanLiteral(boolean b) {
    return Optional.of(b ? "1" : "0");
  }

  @Override
  protected Optional<String> floatLiteral(float f) {
    return Optional.empty();
  }

  @Override
  protected Optional<String> decimalLiteral(String plainText, int precision) {
    // SQLite holds such values as doubles: an exact decimal comparison is not available.
    return Optional.empty();
  }

  @Override
  protected Optional<String> dateLiteral(String date, int year) {
    // Dates are text in whatever form they were written.
    return Optional.empty();
  }

  @Override
  protected Optional<String> timestampLiteral(String timestamp, int year) {
    return Optional.empty();
  }

  @Override
  protected Optional<String> zonedTimestampLiteral(String utcTimestamp, int year) {
    return Optional.empty();
  }

  @Override
  public Optional<String> stringMatch(String column, String function, String text) {
    // SQLite's LIKE ignores the case of ASCII letters: compare positions instead.
    Optional<String> lit = stringLiteral(text);
    if (!lit.isPresent()) {
      return Optional.empty();
    }
    String t = lit.get();
    switch (function) {
      case "STARTS_WITH":
        return Optional.of("(instr(" + column + ", " + t + ") = 1)");
      case "CONTAINS":
        return Optional.of("(instr(" + column + ", " + t + ") > 0)");
      case "ENDS_WITH":
        return Optional.of(
            "(length("
                + column
                + ") >= length("
                + t
                + ") AND substr("
                + column
                + ", length("
                + column
                + ") - length("
                + t
                + ") + 1) = "
                + t
                + ")");
      default:
        return Optional.empty();
    }
  }

  @Override
  public String nullSafeEqual(String left, String right) {
    return "(" + left + " IS " + right + ")";
  }

  @Override
  protected Optional<String> unlimited() {
    return Optional.of("-1");
  }

  /** The declared types arrow-go's SQLite example knows; anything else would crash it. */
  @Override
  protected String typeName(DataType type) {
    if (type instanceof ByteType || type instanceof BooleanType) {
      return "tinyint";
    }
    if (type instanceof ShortType || type instanceof IntegerType || type instanceof LongType) {
      return "integer";
    }
    if (type instanceof FloatType) {
      return "float";
    }
    if (type instanceof DoubleType) {
      return "double";
    }
    if (type instanceof StringType) {
      return "text";
    }
    if (type instanceof BinaryType) {
      return "blob";
    }
    if (type instanceof DateType) {
      return "date";
    }
    return null;
  }

  @Override
  public Optional<String> renameTable(TableRef table, String newName) {
    return Optional.of("ALTER TABLE " + table(table) + " RENAME TO " + quoted(newName));
  }

  /** SQLite's sum() of integers fails with "integer overflow". */
  @Override
  public boolean sumOverflowsAsSpark(DataType type) {
    return type instanceof LongType;
  }

  /** SQLite's default collation is BINARY (memcmp of the UTF-8 text); only LIKE ignores case. */
  @Override
  public boolean comparesStringsAsSpark() {
    return true;
  }
}
