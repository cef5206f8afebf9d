package io.flightsql.spark.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one markdown table that {@link PerformanceBenchmark} prints at the end of its run, a row per
 * figure, and how its figures are written (milliseconds, speed ratios, rows per second, MB and
 * MiB).
 */
final class PerformanceTable {

  private static final double MIB = 1024.0 * 1024.0;

  private final List<String> rows = new ArrayList<>();

  void add(String part, String what, String measured, String against, String ratio, String goal) {
    rows.add("| " + String.join(" | ", part, what, measured, against, ratio, goal) + " |");
  }

  void print(double totalSeconds) {
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "Figures of one run (%.0f s in all). Ratios are speed ratios: above 1x the connector is"
            + " faster; MB = 10^6 bytes of Arrow buffers, MiB = 2^20 bytes.%n%n",
        totalSeconds);
    System.out.println("| part | case | flightsql | against | ratio | goal |");
    System.out.println("| --- | --- | --- | --- | ---: | --- |");
    rows.forEach(System.out::println);
  }

  static String ms(double millis) {
    return String.format(Locale.ROOT, "%.1f ms", millis);
  }

  static String ratio(double value) {
    return String.format(Locale.ROOT, "%.2fx", value);
  }

  static String rate(long rows, double seconds) {
    return String.format(Locale.ROOT, "%.2f M rows/s", rows / seconds / 1e6);
  }

  static String mb(double bytes) {
    return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
  }

  static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / MIB);
  }

  static String count(long rows) {
    return rows % 1_000_000 == 0
        ? rows / 1_000_000 + "M"
        : rows % 1_000 == 0 ? rows / 1_000 + "k" : Long.toString(rows);
  }

  /** A peak in record batches of {@code batch} bytes. */
  static String batches(long peak, long batch) {
    return String.format(Locale.ROOT, "%.1f batches", (double) peak / batch);
  }
}
