package io.flightsql.spark.dialect;

import io.flightsql.spark.client.metadata.TableRef;
import java.util.Optional;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Spark SQL, as servers that speak it read it (Sail, Kyuubi-style gateways, Databricks-like
 * endpoints): backtick-quoted identifiers, and {@code "..."} a string, not a name.
 *
 * <p>Spark reads a backslash in a string literal as an escape unless {@code
 * spark.sql.parser.escapedStringLiterals} is set, which the connector cannot know, so strings with
 * a backslash are not written. A single quote is not written doubled either: Spark reads {@code
 * 'it''s'} as two literals and joins them ({@code its}). A string holding a single quote is written
 * between double quotes instead, and one holding both kinds is not written.
 */
final class SparkDialect extends Dialect {
  private static final long serialVersionUID = 1L;

  static final String NAME = "spark";

  SparkDialect(String serverQuote) {
    super(serverQuote, "`");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  protected Optional<String> quoteString(String s) {
    if (s.indexOf('\\') >= 0) {
      return Optional.empty();
    }
    if (s.indexOf('\'') < 0) {
      return Optional.of("'" + s + "'");
    }
    return s.indexOf('"') < 0 ? Optional.of("\"" + s + "\"") : Optional.empty();
  }

  @Override
  protected Optional<String> floatLiteral(float f) {
    return doubleLiteral(f).map(d -> "CAST(" + d + " AS FLOAT)");
  }

  @Override
  protected Optional<String> timestampLiteral(String timestamp, int year) {
    // A bare TIMESTAMP literal is in the session time zone, which the connector cannot know.
    return Optional.of("TIMESTAMP_NTZ '" + timestamp + "'");
  }

  @Override
  protected Optional<String> zonedTimestampLiteral(String utcTimestamp, int year) {
    return Optional.of("TIMESTAMP '" + utcTimestamp + "+00:00'");
  }

  @Override
  public String nullSafeEqual(String left, String right) {
    return "(" + left + " <=> " + right + ")";
  }

  @Override
  protected String typeName(DataType type) {
    if (type instanceof ByteType) {
      return "TINYINT";
    }
    if (type instanceof FloatType) {
      return "FLOAT";
    }
    if (type instanceof DoubleType) {
      return "DOUBLE";
    }
    if (type instanceof StringType) {
      return "STRING";
    }
    if (type instanceof BinaryType) {
      return "BINARY";
    }
    if (type instanceof TimestampType) {
      return "TIMESTAMP";
    }
    if (type instanceof TimestampNTZType) {
      return "TIMESTAMP_NTZ";
    }
    return super.typeName(type);
  }

  /** Spark SQL's own sampling of a relation, each row kept with the given chance. */
  @Override
  public Optional<String> tableSample(double fraction, long seed) {
    return Optional.of(
        "TABLESAMPLE (" + percent(fraction) + " PERCENT) REPEATABLE (" + sampleSeed(seed) + ")");
  }

  @Override
  public Optional<String> renameTable(TableRef table, String newName) {
    return Optional.of("ALTER TABLE " + table(table) + " RENAME TO " + quoted(newName));
  }

  /** Spark SQL sums doubles as IEEE doubles: past the range, an infinity. */
  @Override
  public boolean sumOverflowsAsSpark(DataType type) {
    return type instanceof DoubleType;
  }

  /**
   * Spark SQL (and Sail) compare strings by their UTF-8 bytes unless a column declares a collation.
   */
  @Override
  public boolean comparesStringsAsSpark() {
    return true;
  }

  /**
   * Sail (0.7.2) answers a grouped MIN or MAX over a FLOAT or DOUBLE group holding only an infinity
   * with the type's largest finite value (3.4028235E38 for Infinity), and the MAX of 1.5 and NaN
   * with 1.5, where Spark answers the infinity, and NaN (to Spark the largest value): Spark
   * computes these itself.
   */
  @Override
  public boolean minMaxOfFloatingAsSpark() {
    return false;
  }
}
