package io.flightsql.spark.sql;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The SQL literals of partition bounds, in one place so that a server's dialect can take over their
 * rendering. Standard SQL typed literals: whole numbers as they are, {@code DATE 'yyyy-MM-dd'},
 * {@code TIMESTAMP 'yyyy-MM-dd HH:mm:ss.ffffff'} for timestamps without a time zone, and {@code
 * TIMESTAMP WITH TIME ZONE '... +00:00'} for instants, which names the offset so that the server's
 * own time zone setting cannot shift the bound.
 */
public final class PartitionLiterals {
  private static final DateTimeFormatter MICROS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);

  private PartitionLiterals() {}

  /**
   * A bound of a partition column of kind {@code kind}, held as {@link ColumnPartitioning} does.
   */
  public static String literal(ColumnPartitioning.ColumnKind kind, long value) {
    switch (kind) {
      case NUMBER:
        return Long.toString(value);
      case DATE:
        return "DATE '" + LocalDate.ofEpochDay(value) + "'";
      case TIMESTAMP:
        return "TIMESTAMP WITH TIME ZONE '" + MICROS.format(utc(value)) + "+00:00'";
      case TIMESTAMP_NTZ:
        return "TIMESTAMP '" + MICROS.format(utc(value)) + "'";
      default:
        throw new IllegalStateException("Unknown partition column kind " + kind);
    }
  }

  private static LocalDateTime utc(long micros) {
    Instant instant =
        Instant.ofEpochSecond(
            Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
  }
}
