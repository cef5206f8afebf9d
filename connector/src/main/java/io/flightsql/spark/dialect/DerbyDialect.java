package io.flightsql.spark.dialect;

import io.flightsql.spark.client.metadata.TableRef;
import java.util.Optional;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Apache Derby, as Arrow Java's Flight SQL example serves it: {@code OFFSET ... ROWS FETCH FIRST
 * ... ROWS ONLY}, 31-digit decimals, 32,672-character strings, Julian dates before 1583, no
 * subnormal doubles and no zoned timestamps.
 */
final class DerbyDialect extends Dialect {
  private static final long serialVersionUID = 1L;

  static final String NAME = "derby";

  /** Derby's longest string constant, and longest VARCHAR. */
  private static final int LONGEST_STRING = 32_672;

  private static final int MAX_PRECISION = 31;

  /** Derby's dates are java.sql dates: Julian before 1582, where Spark's are Gregorian. */
  private static final int FIRST_GREGORIAN_YEAR = 1583;

  DerbyDialect(String serverQuote) {
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
  protected int longestString() {
    return LONGEST_STRING;
  }

  @Override
  protected Optional<String> doubleLiteral(double d) {
    // Derby refuses subnormal doubles.
    return d != 0 && Math.abs(d) < Double.MIN_NORMAL ? Optional.empty() : super.doubleLiteral(d);
  }

  @Override
  protected Optional<String> decimalLiteral(String plainText, int precision) {
    return precision > MAX_PRECISION
        ? Optional.empty()
        : super.decimalLiteral(plainText, precision);
  }

  @Override
  protected Optional<String> dateLiteral(String date, int year) {
    return year < FIRST_GREGORIAN_YEAR ? Optional.empty() : Optional.of("DATE('" + date + "')");
  }

  @Override
  protected Optional<String> timestampLiteral(String timestamp, int year) {
    return year < FIRST_GREGORIAN_YEAR
        ? Optional.empty()
        : Optional.of("TIMESTAMP('" + timestamp + "')");
  }

  @Override
  protected Optional<String> zonedTimestampLiteral(String utcTimestamp, int year) {
    return Optional.empty();
  }

  @Override
  public Optional<String> limitOffset(int limit, int offset) {
    if (limit == 0 || offset < 0) {
      return Optional.empty();
    }
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

  @Override
  protected String typeName(DataType type) {
    if (type instanceof ByteType) {
      return "SMALLINT";
    }
    if (type instanceof DoubleType) {
      return "DOUBLE";
    }
    if (type instanceof DecimalType && ((DecimalType) type).precision() > MAX_PRECISION) {
      return null;
    }
    if (type instanceof StringType) {
      return "VARCHAR(" + LONGEST_STRING + ")";
    }
    if (type instanceof BinaryType) {
      return "VARCHAR(" + LONGEST_STRING + ") FOR BIT DATA";
    }
    if (type instanceof TimestampType) {
      return null;
    }
    return super.typeName(type);
  }

  @Override
  public Optional<String> renameTable(TableRef table, String newName) {
    return Optional.of("RENAME TABLE " + table(table) + " TO " + quoted(newName));
  }

  @Override
  public Optional<String> currentSchemaQuery() {
    return Optional.of("VALUES CURRENT SCHEMA");
  }

  /** Derby fails a SUM that leaves BIGINT's range, and one that leaves DOUBLE's. */
  @Override
  public boolean sumOverflowsAsSpark(DataType type) {
    return type instanceof LongType;
  }

  /**
   * Derby pads the shorter of two strings with spaces ({@code 'a' = 'a '}) and orders them by
   * UTF-16 code units, and it refuses the string-order probe anyway (no SELECT without FROM).
   */
  @Override
  public boolean comparesStringsOtherwise() {
    return true;
  }
}
