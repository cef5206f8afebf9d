package io.flightsql.spark.dialect;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
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
 * Turns a Spark value into the text a dialect writes it in: this class reads Spark's internal forms
 * and formats numbers, dates and timestamps; the dialect's hooks decide the literal's shape, or
 * that it has none. What no server of any dialect compares exactly (years outside 1 to 9999, NaN)
 * is refused here once.
 */
final class Literals {
  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("uuuu-MM-dd");
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

  private Literals() {}

  /**
   * A literal of Spark type {@code type} holding {@code value} (in Spark's internal form: {@code
   * UTF8String} or {@code String}, {@link Decimal} or {@link BigDecimal}, days since the epoch for
   * a date, microseconds since the epoch for timestamps, {@code byte[]} for binary), or empty when
   * {@code dialect} cannot write it. A null value is {@code NULL}.
   */
  static Optional<String> of(Dialect dialect, Object value, DataType type) {
    if (value == null) {
      return Optional.of("NULL");
    }
    if (type instanceof BooleanType) {
      return dialect.booleanLiteral((Boolean) value);
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
      float f = ((Number) value).floatValue();
      return Float.isNaN(f) || Float.isInfinite(f) ? Optional.empty() : dialect.floatLiteral(f);
    }
    if (type instanceof DoubleType) {
      return dialect.doubleLiteral(((Number) value).doubleValue());
    }
    if (type instanceof DecimalType) {
      BigDecimal d =
          value instanceof Decimal ? ((Decimal) value).toJavaBigDecimal() : (BigDecimal) value;
      return dialect.decimalLiteral(d.toPlainString(), d.precision());
    }
    if (type instanceof StringType) {
      return dialect.stringLiteral(value.toString());
    }
    if (type instanceof BinaryType) {
      return dialect.binaryLiteral(hex((byte[]) value));
    }
    if (type instanceof DateType) {
      LocalDate date = LocalDate.ofEpochDay(((Number) value).longValue());
      return inRange(date.getYear())
          ? dialect.dateLiteral(DATE.format(date), date.getYear())
          : Optional.empty();
    }
    if (type instanceof TimestampNTZType || type instanceof TimestampType) {
      LocalDateTime t = microsToUtc(((Number) value).longValue());
      if (!inRange(t.getYear())) {
        return Optional.empty();
      }
      return type instanceof TimestampType
          ? dialect.zonedTimestampLiteral(TIMESTAMP.format(t), t.getYear())
          : dialect.timestampLiteral(TIMESTAMP.format(t), t.getYear());
    }
    return Optional.empty();
  }

  private static boolean inRange(int year) {
    return year >= 1 && year <= 9999;
  }

  private static String hex(byte[] bytes) {
    StringBuilder hex = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) {
      hex.append(String.format(Locale.ROOT, "%02X", b & 0xff));
    }
    return hex.toString();
  }

  private static LocalDateTime microsToUtc(long micros) {
    long seconds = Math.floorDiv(micros, 1_000_000L);
    long nanos = Math.floorMod(micros, 1_000_000L) * 1000L;
    return LocalDateTime.ofInstant(Instant.ofEpochSecond(seconds, nanos), ZoneOffset.UTC);
  }
}
