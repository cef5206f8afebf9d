package io.flightsql.spark.stream;

import io.flightsql.spark.config.OptionReader;
import io.flightsql.spark.config.StreamOptions;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;

/**
 * The column a stream's offsets are values of (option {@code offsetColumn}), and its values: a
 * {@code Long} for integers, dates (days since the epoch) and timestamps (microseconds since the
 * epoch, as Spark holds them), a {@code BigDecimal} of the column's scale for decimals. Writes them
 * into a checkpoint's JSON as exact text and reads them back to the same value; parses option
 * {@code startingOffsets} and {@code offsetLag} as the column's type wants them; and gives the
 * value just below another, so that a micro-batch can end before a group of equal values.
 * Immutable; driver only.
 */
final class OffsetColumn {
  /** The families of types an offset column may have: each has a next-smaller value. */
  enum Kind {
    INTEGRAL,
    DECIMAL,
    DATE,
    TIMESTAMP,
    TIMESTAMP_NTZ
  }

  /** Microseconds with their six digits always, so that equal values have equal text. */
  private static final DateTimeFormatter LOCAL =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .appendLiteral('T')
          .appendPattern("HH:mm:ss")
          .appendFraction(ChronoField.MICRO_OF_SECOND, 6, 6, true)
          .toFormatter(Locale.ROOT);

  private final String name;
  private final DataType type;
  private final Kind kind;

  private OffsetColumn(String name, DataType type, Kind kind) {
    this.name = name;
    this.type = type;
    this.kind = kind;
  }

  /**
   * The column option {@code offsetColumn} names in {@code schema}: its exact name, else the one
   * column whose name equals it ignoring case.
   *
   * @throws IllegalArgumentException naming the option when no column or several match, or the
   *     column's type has no next-smaller value (floating point, text, ...)
   */
  static OffsetColumn of(StructType schema, String option) {
    StructField field = resolve(schema, option);
    DataType type = field.dataType();
    Kind kind;
    if (type instanceof ByteType
        || type instanceof ShortType
        || type instanceof IntegerType
        || type instanceof LongType) {
      kind = Kind.INTEGRAL;
    } else if (type instanceof DecimalType) {
      kind = Kind.DECIMAL;
    } else if (type instanceof DateType) {
      kind = Kind.DATE;
    } else if (type instanceof TimestampType) {
      kind = Kind.TIMESTAMP;
    } else if (type instanceof TimestampNTZType) {
      kind = Kind.TIMESTAMP_NTZ;
    } else {
      throw OptionReader.invalid(
          StreamOptions.OFFSET_COLUMN,
          option,
          "column '"
              + field.name()
              + "' is "
              + type.catalogString()
              + "; an offset column must be an integer, a decimal, a date or a timestamp, whose"
              + " values the server and Spark compare alike");
    }
    return new OffsetColumn(field.name(), type, kind);
  }

  private static StructField resolve(StructType schema, String option) {
    for (StructField field : schema.fields()) {
      if (field.name().equals(option)) {
        return field;
      }
    }
    List<StructField> matches = new ArrayList<>();
    for (StructField field : schema.fields()) {
      if (field.name().equalsIgnoreCase(option)) {
        matches.add(field);
      }
    }
    if (matches.size() == 1) {
      return matches.get(0);
    }
    throw OptionReader.invalid(
        StreamOptions.OFFSET_COLUMN,
        option,
        matches.isEmpty()
            ? "the source has no such column; its columns are "
                + String.join(", ", schema.fieldNames())
            : "it matches "
                + matches.size()
                + " columns when case is ignored; give its exact name");
  }

  /** The column's name in the source's schema. */
  String name() {
    return name;
  }

  DataType type() {
    return type;
  }

  Kind kind() {
    return kind;
  }

  /** The type as checkpoints and messages name it, such as {@code decimal(20,4)}. */
  String typeName() {
    return type.catalogString();
  }

  /** The value at {@code ordinal} of a row Spark read; null for NULL. */
  Object fromRow(InternalRow row, int ordinal) {
    if (row.isNullAt(ordinal)) {
      return null;
    }
    Object value = row.get(ordinal, type);
    if (kind == Kind.DECIMAL) {
      return ((Decimal) value).toJavaBigDecimal();
    }
    return ((Number) value).longValue();
  }

  /** Negative, zero or positive as {@code a} is below, equal to or above {@code b}. */
  @SuppressWarnings("unchecked")
  int compare(Object a, Object b) {
    return ((Comparable<Object>) a).compareTo(b);
  }

  /**
   * The value just below {@code value} that the column can hold, or null when there is none: a
   * condition {@code <= predecessor(v)} then takes exactly the rows below {@code v}.
   */
  Object predecessor(Object value) {
    if (kind == Kind.DECIMAL) {
      BigDecimal v = (BigDecimal) value;
      BigDecimal below = v.subtract(BigDecimal.ONE.movePointLeft(v.scale()));
      return below.precision() <= ((DecimalType) type).precision() ? below : null;
    }
    long v = (Long) value;
    return v == lowest() ? null : v - 1;
  }

  /** The smallest value of an integral, date or timestamp column, in this class's longs. */
  private long lowest() {
    if (type instanceof ByteType) {
      return Byte.MIN_VALUE;
    }
    if (type instanceof ShortType) {
      return Short.MIN_VALUE;
    }
    if (type instanceof IntegerType || type instanceof DateType) {
      return Integer.MIN_VALUE;
    }
    return Long.MIN_VALUE;
  }

  /**
   * Option {@code offsetLag} as an amount to take from values of this column: a non-negative number
   * for numeric columns, microseconds for timestamps, days for dates.
   *
   * @throws IllegalArgumentException naming the option when the text is not of the column's form
   */
  Object parseLag(String text) {
    String value = text.trim();
    try {
      switch (kind) {
        case INTEGRAL:
          long whole = Long.parseLong(value);
          if (whole < 0) {
            throw new NumberFormatException();
          }
          return whole;
        case DECIMAL:
          BigDecimal amount = new BigDecimal(value);
          if (amount.signum() < 0) {
            throw new NumberFormatException();
          }
          return amount;
        case DATE:
          Duration days = StreamOptions.lag(value);
          if (days.toDays() * 86_400L != days.getSeconds() || days.getNano() != 0) {
            throw new NumberFormatException();
          }
          return days.toDays();
        default:
          Duration lag = StreamOptions.lag(value);
          return Math.addExact(
              Math.multiplyExact(lag.getSeconds(), 1_000_000L), lag.getNano() / 1000L);
      }
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw OptionReader.invalid(
          StreamOptions.OFFSET_LAG,
          text,
          "the offset column '"
              + name
              + "' is "
              + typeName()
              + ", which takes "
              + (kind == Kind.INTEGRAL || kind == Kind.DECIMAL
                  ? "a non-negative number"
                  : kind == Kind.DATE
                      ? "whole days, such as `24h` or `48h`"
                      : "a duration such as `500ms`, `30s`, `5m` or `2h`"));
    }
  }

  /**
   * {@code value} less {@code lag} (as {@link #parseLag} gives it), or null below the column's
   * range.
   */
  Object minus(Object value, Object lag) {
    if (kind == Kind.DECIMAL) {
      BigDecimal below = ((BigDecimal) value).subtract((BigDecimal) lag);
      int scale = ((DecimalType) type).scale();
      // Rounded down to the column's scale: a mark between two values reads the lower one.
      return below.setScale(scale, RoundingMode.FLOOR);
    }
    try {
      long below = Math.subtractExact((Long) value, (Long) lag);
      return below < lowest() ? null : below;
    } catch (ArithmeticException e) {
      return null;
    }
  }

  /**
   * Option {@code startingOffsets} given as a value: numbers as written (a decimal within the
   * column's precision and scale), dates and timestamps as Spark's CAST reads them, a timestamp
   * without an offset in {@code zone}.
   *
   * @throws IllegalArgumentException naming the option when the text is not a value of the column
   */
  Object parseStart(String text, ZoneId zone) {
    String value = text.trim();
    Object parsed = null;
    try {
      switch (kind) {
        case INTEGRAL:
          long whole = Long.parseLong(value);
          parsed = whole >= lowest() ? whole : null;
          break;
        case DECIMAL:
          DecimalType decimal = (DecimalType) type;
          BigDecimal exact = new BigDecimal(value).setScale(decimal.scale());
          parsed = exact.precision() <= decimal.precision() ? exact : null;
          break;
        case DATE:
          parsed = orNull(DateTimeUtils.stringToDate(UTF8String.fromString(value)));
          break;
        case TIMESTAMP:
          parsed = orNull(DateTimeUtils.stringToTimestamp(UTF8String.fromString(value), zone));
          break;
        default:
          parsed =
              orNull(DateTimeUtils.stringToTimestampWithoutTimeZone(UTF8String.fromString(value)));
          break;
      }
    } catch (NumberFormatException | ArithmeticException e) {
      parsed = null;
    }
    if (parsed == null) {
      throw OptionReader.invalid(
          StreamOptions.STARTING_OFFSETS,
          text,
          "the offset column '" + name + "' is " + typeName());
    }
    return parsed;
  }

  /** What Spark parsed (days or microseconds) as a long; null where it parsed nothing. */
  private static Long orNull(Option<Object> parsed) {
    return parsed.isDefined() ? ((Number) parsed.get()).longValue() : null;
  }

  /**
   * The exact text of a value, as checkpoints keep it: digits of integers and decimals (with the
   * column's scale), ISO-8601 dates, timestamps with six fractional digits (a UTC instant ending in
   * {@code Z}, or a local date-time without a zone).
   */
  String text(Object value) {
    switch (kind) {
      case INTEGRAL:
        return Long.toString((Long) value);
      case DECIMAL:
        return ((BigDecimal) value).toPlainString();
      case DATE:
        return LocalDate.ofEpochDay((Long) value).toString();
      case TIMESTAMP:
        return LOCAL.format(utc((Long) value)) + "Z";
      default:
        return LOCAL.format(utc((Long) value));
    }
  }

  /**
   * The value of a text {@link #text} wrote.
   *
   * @throws IllegalArgumentException when the text is not one
   */
  Object parseText(String text) {
    try {
      switch (kind) {
        case INTEGRAL:
          return Long.parseLong(text);
        case DECIMAL:
          return new BigDecimal(text).setScale(((DecimalType) type).scale());
        case DATE:
          return LocalDate.parse(text).toEpochDay();
        case TIMESTAMP:
          if (!text.endsWith("Z")) {
            throw new IllegalArgumentException("no Z");
          }
          return micros(LocalDateTime.parse(text.substring(0, text.length() - 1), LOCAL));
        default:
          return micros(LocalDateTime.parse(text, LOCAL));
      }
    } catch (DateTimeException | ArithmeticException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a value of the " + typeName() + " offset column '" + name + "'",
          e);
    }
  }

  private static LocalDateTime utc(long micros) {
    long seconds = Math.floorDiv(micros, 1_000_000L);
    long nanos = Math.floorMod(micros, 1_000_000L) * 1000L;
    return LocalDateTime.ofInstant(Instant.ofEpochSecond(seconds, nanos), ZoneOffset.UTC);
  }

  private static long micros(LocalDateTime utc) {
    Instant instant = utc.toInstant(ZoneOffset.UTC);
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000L);
  }

  @Override
  public String toString() {
    return name + " (" + typeName() + ")";
  }
}
