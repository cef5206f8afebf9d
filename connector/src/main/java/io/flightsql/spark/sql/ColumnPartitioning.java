package io.flightsql.spark.sql;

import io.flightsql.spark.config.OptionReader;
import io.flightsql.spark.config.OptionSpec;
import io.flightsql.spark.config.ReadOptions;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongFunction;

/**
 * The ranges of a partition column as WHERE clauses, by the rules of Spark's JDBC source ({@code
 * JDBCRelation.columnPartition}): the range from {@code lowerBound} to {@code upperBound} is cut
 * into {@code numPartitions} strides of equal width; the first partition also takes every value
 * below its upper end and NULL, the last every value from its lower end up, so the bounds decide
 * the stride and never filter. Fewer partitions than asked when the range is narrower than their
 * number; one partition, with no clause, when one is asked or the bounds are equal.
 *
 * <p>Bounds are held as longs: the whole number itself, days since 1970-01-01 for dates,
 * microseconds since 1970-01-01T00:00Z for timestamps (for timestamps without a time zone, of the
 * wall-clock time read as UTC). Knows nothing of Spark; the caller finds the column's kind and
 * writes its bounds in the server's dialect.
 */
public final class ColumnPartitioning {

  /** The kinds of partition columns, by how their bounds are written and compared. */
  public enum ColumnKind {
    /** Integral, decimal and floating-point columns: whole-number bounds. */
    NUMBER,
    DATE,
    /** An instant (Spark TIMESTAMP). */
    TIMESTAMP,
    /** A wall-clock date and time (Spark TIMESTAMP_NTZ). */
    TIMESTAMP_NTZ
  }

  private final long lowerBound;
  private final long upperBound;
  private final int requested;
  private final List<String> clauses;

  private ColumnPartitioning(
      long lowerBound, long upperBound, int requested, List<String> clauses) {
    this.lowerBound = lowerBound;
    this.upperBound = upperBound;
    this.requested = requested;
    this.clauses = clauses;
  }

  /**
   * Plans the partitions of a column.
   *
   * @param quotedColumn the column as it goes into SQL, already quoted
   * @param literal a bound as SQL in the server's dialect, held as this class holds bounds
   * @param zone the zone of timestamp bounds written without an offset (the session time zone)
   * @throws IllegalArgumentException naming the option at fault: a bound that does not parse as the
   *     column's kind, or a lower bound above the upper one
   */
  public static ColumnPartitioning plan(
      String quotedColumn,
      ColumnKind kind,
      LongFunction<String> literal,
      String lowerText,
      String upperText,
      int numPartitions,
      ZoneId zone) {
    if (numPartitions < 1) {
      throw OptionReader.invalid(ReadOptions.NUM_PARTITIONS, Integer.toString(numPartitions), null);
    }
    long lower = parseBound(ReadOptions.LOWER_BOUND, lowerText, kind, zone);
    long upper = parseBound(ReadOptions.UPPER_BOUND, upperText, kind, zone);
    if (lower > upper) {
      // Spark's JDBC source lets this pass when one partition is asked; refusing it always says
      // the same thing about the same mistake whatever numPartitions is.
      throw new IllegalArgumentException(
          "Option 'lowerBound' ("
              + lowerText
              + ") is larger than option 'upperBound' ("
              + upperText
              + "): the lower bound of the partition column must not exceed its upper bound");
    }
    if (numPartitions == 1 || lower == upper) {
      return new ColumnPartitioning(
          lower, upper, numPartitions, Collections.singletonList((String) null));
    }
    long width = upper - lower;
    // A negative width is an overflow: the range is wider than any number of partitions.
    int count = width >= numPartitions || width < 0 ? numPartitions : (int) width;
    if (count == 1) {
      return new ColumnPartitioning(
          lower, upper, numPartitions, Collections.singletonList((String) null));
    }
    return new ColumnPartitioning(
        lower, upper, numPartitions, clauses(quotedColumn, literal, lower, upper, count));
  }

  private static List<String> clauses(
      String column, LongFunction<String> literal, long lower, long upper, int count) {
    // Dividing each bound before subtracting keeps (Long.MAX_VALUE - Long.MIN_VALUE) from
    // overflowing; fixed-point decimals keep the stride exact where a double would not be.
    BigDecimal partitions = BigDecimal.valueOf(count);
    BigDecimal preciseStride =
        BigDecimal.valueOf(upper)
            .divide(partitions, 18, RoundingMode.HALF_EVEN)
            .subtract(BigDecimal.valueOf(lower).divide(partitions, 18, RoundingMode.HALF_EVEN));
    // At least 1: rounding at 18 digits could otherwise leave a range of exactly `count` values
    // a hair below one per partition.
    long stride = Math.max(1L, preciseStride.longValue());
    // The strides lost to truncation all fall short at the top; start half of them earlier so
    // that the first and last partitions share the remainder.
    BigDecimal lostStrides =
        preciseStride
            .subtract(BigDecimal.valueOf(stride))
            .multiply(partitions)
            .divide(BigDecimal.valueOf(stride), MathContext.DECIMAL128);
    long start =
        lower
            + lostStrides
                .divide(BigDecimal.valueOf(2), MathContext.DECIMAL128)
                .multiply(BigDecimal.valueOf(stride))
                .setScale(0, RoundingMode.HALF_UP)
                .longValue();
    List<String> out = new ArrayList<>(count);
    long current = start;
    for (int i = 0; i < count; i++) {
      String from = i == 0 ? null : column + " >= " + literal.apply(current);
      current += stride;
      String below = i == count - 1 ? null : column + " < " + literal.apply(current);
      if (from == null) {
        out.add(below + " OR " + column + " IS NULL");
      } else if (below == null) {
        out.add(from);
      } else {
        out.add(from + " AND " + below);
      }
    }
    return Collections.unmodifiableList(out);
  }

  /**
   * A bound as the long this class computes with.
   *
   * @throws IllegalArgumentException naming the option when the text is not of the column's kind
   */
  static long parseBound(OptionSpec<?> option, String text, ColumnKind kind, ZoneId zone) {
    String value = text.trim();
    try {
      switch (kind) {
        case NUMBER:
          return Long.parseLong(value);
        case DATE:
          return LocalDate.parse(value).toEpochDay();
        case TIMESTAMP:
          return micros(instant(value, zone));
        case TIMESTAMP_NTZ:
          return micros(localDateTime(value).toInstant(ZoneOffset.UTC));
        default:
          throw new IllegalStateException("Unknown partition column kind " + kind);
      }
    } catch (DateTimeException | NumberFormatException | ArithmeticException e) {
      throw OptionReader.invalid(option, text, "the partition column is " + describe(kind));
    }
  }

  private static String describe(ColumnKind kind) {
    switch (kind) {
      case NUMBER:
        return "numeric: expected a whole number";
      case DATE:
        return "a date: expected yyyy-MM-dd";
      case TIMESTAMP:
        return "a timestamp: expected yyyy-MM-dd[ HH:mm:ss[.ffffff]], optionally with an offset"
            + " such as Z or +02:00";
      default:
        return "a timestamp without time zone: expected yyyy-MM-dd[ HH:mm:ss[.ffffff]]";
    }
  }

  /** A timestamp with an offset as written, or else a wall-clock time in {@code zone}. */
  private static Instant instant(String value, ZoneId zone) {
    String iso = isoSeparator(value);
    if (iso.length() > 10 && hasOffset(iso)) {
      return OffsetDateTime.parse(iso.endsWith("z") ? iso.replace('z', 'Z') : iso).toInstant();
    }
    return localDateTime(value).atZone(zone).toInstant();
  }

  private static boolean hasOffset(String iso) {
    int time = iso.indexOf('T');
    if (time < 0) {
      return false;
    }
    String clock = iso.substring(time);
    return clock.endsWith("Z") || clock.endsWith("z") || clock.contains("+") || clock.contains("-");
  }

  private static LocalDateTime localDateTime(String value) {
    String iso = isoSeparator(value);
    if (iso.length() == 10) {
      return LocalDate.parse(iso).atStartOfDay();
    }
    return LocalDateTime.parse(iso);
  }

  /** {@code 2024-01-01 12:00} as ISO-8601 writes it, {@code 2024-01-01T12:00}. */
  private static String isoSeparator(String value) {
    if (value.length() > 10 && value.charAt(10) == ' ') {
      return value.substring(0, 10) + 'T' + value.substring(11).trim();
    }
    return value;
  }

  private static long micros(Instant instant) {
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000L);
  }

  /** One WHERE clause per partition, in order; a single null when the query is read whole. */
  public List<String> clauses() {
    return clauses;
  }

  /** The partitions asked for with {@code numPartitions}. */
  public int requested() {
    return requested;
  }

  /** Whether there are fewer partitions than asked, because the range is narrower. */
  public boolean reduced() {
    return clauses.size() < requested;
  }

  public long lowerBound() {
    return lowerBound;
  }

  public long upperBound() {
    return upperBound;
  }
}
