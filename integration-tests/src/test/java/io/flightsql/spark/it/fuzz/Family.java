package io.flightsql.spark.it.fuzz;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * A family of column types the fuzzer writes, with the values it draws from (edges of the type
 * first: MIN/MAX of each integer width, decimals at their precision, NaN and infinities, empty and
 * non-ASCII strings, dates and timestamps far apart and across zones), how Spark SQL writes a
 * literal of it, and how a value written or read back is reduced to one text for comparison.
 */
enum Family {
  SMALLINT(
      List.of(Short.MIN_VALUE, Short.MAX_VALUE, (short) 0, (short) -1, (short) 30000, (short) 7)),
  INT(List.of(Integer.MIN_VALUE, Integer.MAX_VALUE, 0, 1, -7, 2_000_000_000, 3)),
  BIGINT(List.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, 42L, -9_000_000_000_000_000L, 5L)),
  DECIMAL_18_4(
      decimals(
          "99999999999999.9999", "-99999999999999.9999", "0.0000", "0.0001", "1.5000", "-2.2500")),
  DECIMAL_38_10(
      decimals(
          "9999999999999999999999999999.9999999999",
          "-9999999999999999999999999999.9999999999",
          "0.0000000001",
          "0E-10",
          "123.4500000000")),
  DOUBLE(List.of(0.0, -0.0, 1.5, -2.25, 1.0e300, -1.0e-300, 0.1, Double.NaN, inf(), -inf())),
  REAL(List.of(0.0f, 1.5f, -2.25f, 3.4e38f, 1.0e-30f, 0.1f, Float.NaN, (float) inf())),
  STRING(List.of("", "a", "A", "alice", "Alice", "Zoë ✓", "it's", "50%_off", "ß", "日本", "a ")),
  BOOLEAN(List.of(true, false)),
  DATE(
      List.of(
          LocalDate.of(1970, 1, 1),
          LocalDate.of(1969, 12, 31),
          LocalDate.of(2024, 2, 29),
          LocalDate.of(1900, 1, 1),
          LocalDate.of(9999, 12, 31))),
  TIMESTAMP(
      List.of(
          LocalDateTime.of(1970, 1, 1, 0, 0),
          LocalDateTime.of(2024, 3, 10, 2, 30),
          LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000),
          LocalDateTime.of(2038, 1, 19, 3, 14, 8),
          LocalDateTime.of(1969, 12, 31, 23, 59, 59))),
  TIMESTAMP_TZ(
      List.of(
          OffsetDateTime.of(2024, 1, 2, 3, 4, 5, 0, ZoneOffset.ofHoursMinutes(5, 30)),
          OffsetDateTime.of(2024, 1, 1, 22, 34, 5, 0, ZoneOffset.UTC),
          OffsetDateTime.of(1999, 12, 31, 16, 0, 0, 0, ZoneOffset.ofHours(-8)),
          OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.ofHours(14))));

  static final DateTimeFormatter SQL_TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");
  static final DateTimeFormatter SQL_TIMESTAMP_TZ =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSxxx");

  private final List<Object> values;

  @SuppressWarnings("unchecked")
  Family(List<?> values) {
    this.values = (List<Object>) values;
  }

  private static double inf() {
    return Double.POSITIVE_INFINITY;
  }

  private static List<BigDecimal> decimals(String... texts) {
    return java.util.Arrays.stream(texts).map(BigDecimal::new).toList();
  }

  /** The values rows draw from, edges first. */
  List<Object> samples() {
    return values;
  }

  boolean numeric() {
    return this != STRING && this != BOOLEAN && !temporal();
  }

  boolean integral() {
    return this == SMALLINT || this == INT || this == BIGINT;
  }

  boolean floating() {
    return this == DOUBLE || this == REAL;
  }

  boolean temporal() {
    return this == DATE || this == TIMESTAMP || this == TIMESTAMP_TZ;
  }

  /** Whether a value is NaN or infinite (which not every server stores). */
  static boolean nonFinite(Object value) {
    return (value instanceof Double d && (d.isNaN() || d.isInfinite()))
        || (value instanceof Float f && (f.isNaN() || f.isInfinite()));
  }

  /** Whether a value is a negative zero (which some servers store as zero). */
  static boolean negativeZero(Object value) {
    return value instanceof Double d && Double.doubleToRawLongBits(d) == Long.MIN_VALUE;
  }

  /** A Spark SQL literal of a value of this family, typed as the family. */
  String sparkLiteral(Object value) {
    if (value == null) {
      return "NULL";
    }
    switch (this) {
      case SMALLINT:
        // Not -32768S: that is 32768S negated, which overflows on Sail.
        return "CAST(" + value + " AS SMALLINT)";
      case INT:
        return (Integer) value == Integer.MIN_VALUE ? "(-2147483647 - 1)" : value.toString();
      case BIGINT:
        return (Long) value == Long.MIN_VALUE ? "(-9223372036854775807L - 1L)" : value + "L";
      case DECIMAL_18_4:
      case DECIMAL_38_10:
        return "CAST('" + ((BigDecimal) value).toPlainString() + "' AS " + sparkType() + ")";
      case DOUBLE:
      case REAL:
        return "CAST('" + value + "' AS " + sparkType() + ")";
      case STRING:
        return sparkString((String) value);
      case BOOLEAN:
        return value.toString();
      case DATE:
        return "DATE'" + value + "'";
      case TIMESTAMP:
        return "TIMESTAMP_NTZ'" + SQL_TIMESTAMP.format((LocalDateTime) value) + "'";
      default:
        return "TIMESTAMP'" + SQL_TIMESTAMP_TZ.format((OffsetDateTime) value) + "'";
    }
  }

  /** Spark SQL's name of the family's type. */
  String sparkType() {
    switch (this) {
      case DECIMAL_18_4:
        return "DECIMAL(18,4)";
      case DECIMAL_38_10:
        return "DECIMAL(38,10)";
      case REAL:
        return "FLOAT";
      case TIMESTAMP:
        return "TIMESTAMP_NTZ";
      case TIMESTAMP_TZ:
        return "TIMESTAMP";
      default:
        return name();
    }
  }

  /** A Spark SQL string literal: backslashes escape, {@code ''} would be two literals joined. */
  static String sparkString(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /**
   * One text for a value of this family, written by the fuzzer or read back through any of the Java
   * types Spark may return for it (a server may widen a type or send a date as text), so that a
   * value the server stored and sent back faithfully compares equal to the one written.
   */
  String canonical(Object value) {
    if (value == null) {
      return "NULL";
    }
    switch (this) {
      case SMALLINT:
      case INT:
      case BIGINT:
        return value instanceof Number n ? Long.toString(n.longValue()) : value.toString();
      case DECIMAL_18_4:
      case DECIMAL_38_10:
        return value instanceof BigDecimal d
            ? (d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString())
            : value.toString();
      case DOUBLE:
        return value instanceof Number n ? canonicalDouble(n.doubleValue()) : value.toString();
      case REAL:
        return value instanceof Number n ? canonicalDouble(n.floatValue()) : value.toString();
      case BOOLEAN:
        return value instanceof Number n ? Boolean.toString(n.longValue() != 0) : value.toString();
      case DATE:
        return value.toString().substring(0, Math.min(10, value.toString().length()));
      default:
        return canonicalTime(value);
    }
  }

  /** Doubles as Java writes them, with {@code -0.0} as {@code 0.0} (SQL compares them equal). */
  static String canonicalDouble(double value) {
    return value == 0.0 ? "0.0" : Double.toString(value);
  }

  private static String canonicalTime(Object value) {
    LocalDateTime utc;
    if (value instanceof OffsetDateTime time) {
      utc = time.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    } else if (value instanceof Instant instant) {
      utc = LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    } else if (value instanceof LocalDateTime time) {
      utc = time;
    } else if (value instanceof java.sql.Timestamp time) {
      utc = LocalDateTime.ofInstant(time.toInstant(), ZoneOffset.UTC);
    } else {
      String text = value.toString().replace(' ', 'T');
      try {
        utc =
            text.endsWith("Z") || text.matches(".*[+-]\\d\\d:\\d\\d$")
                ? OffsetDateTime.parse(text).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime()
                : LocalDateTime.parse(text);
      } catch (java.time.format.DateTimeParseException e) {
        return text;
      }
    }
    return SQL_TIMESTAMP.format(utc);
  }
}
