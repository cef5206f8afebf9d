package io.flightsql.spark.dialect;

import io.flightsql.spark.client.metadata.TableRef;
import java.util.Optional;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * MySQL's syntax as Apache Doris and StarRocks speak it: backtick-quoted identifiers, backslash
 * escapes in string literals (unless NO_BACKSLASH_ESCAPES, which the connector cannot know), no
 * NULLS FIRST/LAST, {@code <=>}, and OFFSET only after a LIMIT.
 */
final class MySqlDialect extends Dialect {
  private static final long serialVersionUID = 1L;

  static final String NAME = "mysql";

  MySqlDialect(String serverQuote) {
    super(serverQuote, "`");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  protected Optional<String> floatLiteral(float f) {
    // FLOAT columns compare as doubles rounded in ways Spark does not.
    return Optional.empty();
  }

  @Override
  protected Optional<String> zonedTimestampLiteral(String utcTimestamp, int year) {
    // MySQL's timestamps depend on the session time zone.
    return Optional.empty();
  }

  @Override
  public String nullSafeEqual(String left, String right) {
    return "(" + left + " <=> " + right + ")";
  }

  @Override
  protected Optional<String> unlimited() {
    return Optional.of("18446744073709551615");
  }

  /**
   * MySQL has no NULLS FIRST/LAST; its own placement (first when ascending, last when descending)
   * is Spark's default, so only that is written.
   */
  @Override
  public Optional<String> orderItem(String column, boolean ascending, boolean nullsFirst) {
    return ascending == nullsFirst
        ? Optional.of(column + (ascending ? " ASC" : " DESC"))
        : Optional.empty();
  }

  @Override
  protected String typeName(DataType type) {
    if (type instanceof StringType) {
      // MySQL's VARCHAR needs a length; its TEXT types do not.
      return "LONGTEXT";
    }
    if (type instanceof BinaryType) {
      return "LONGBLOB";
    }
    if (type instanceof TimestampType) {
      return null;
    }
    if (type instanceof TimestampNTZType) {
      return "DATETIME(6)";
    }
    return super.typeName(type);
  }

  @Override
  public Optional<String> renameTable(TableRef table, String newName) {
    return Optional.of("RENAME TABLE " + table(table) + " TO " + table(table.withName(newName)));
  }

  /** MySQL's CAST knows SIGNED, not BIGINT, and DOUBLE, not DOUBLE PRECISION. */
  @Override
  public Optional<String> castType(DataType type) {
    if (type instanceof LongType) {
      return Optional.of("SIGNED");
    }
    if (type instanceof DoubleType) {
      return Optional.of("DOUBLE");
    }
    if (type instanceof DecimalType) {
      return super.castType(type);
    }
    return Optional.empty();
  }
}
