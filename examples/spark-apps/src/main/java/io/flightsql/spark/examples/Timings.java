package io.flightsql.spark.examples;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** The timed runs of one way of reading, in seconds, and the rates they give. */
final class Timings {

  private final String way;
  private final List<Double> seconds = new ArrayList<>();
  private String skipped;

  /** One timed run of a way. */
  @FunctionalInterface
  interface Run {
    void run() throws Exception;
  }

  /**
   * Runs {@code run} once to warm up, then {@code iterations} times, each after a garbage
   * collection (so that the garbage of what ran before stays out of its time), printing each run.
   */
  static Timings measure(String way, int iterations, Run run) throws Exception {
    Timings timings = new Timings(way);
    for (int i = 0; i <= iterations; i++) {
      System.gc();
      long start = System.nanoTime();
      run.run();
      double took = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          Locale.ROOT, "%-40s %s %6.2f s%n", way, i == 0 ? "warm-up" : "run " + i + "  ", took);
      if (i > 0) {
        timings.add(took);
      }
    }
    return timings;
  }

  Timings(String way) {
    this.way = way;
  }

  String way() {
    return way;
  }

  void add(double runSeconds) {
    seconds.add(runSeconds);
  }

  /** Marks this way as not measured, for the reason given. */
  void skip(String reason) {
    skipped = reason;
  }

  boolean skipped() {
    return skipped != null;
  }

  boolean measured() {
    return skipped == null && !seconds.isEmpty();
  }

  double best() {
    return Collections.min(seconds);
  }

  double median() {
    List<Double> sorted = new ArrayList<>(seconds);
    Collections.sort(sorted);
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1
        ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }

  /**
   * One line of the summary: best and median time, and the rates of the best run ({@code MB} is
   * 10^6 bytes).
   */
  String summary(long rows, long bytes) {
    if (!measured()) {
      return String.format(Locale.ROOT, "%-15s: not measured: %s", way, skipped);
    }
    double best = best();
    return String.format(
        Locale.ROOT,
        "%-15s: best %6.2f s  median %6.2f s  %6.2f M rows/s  %7.1f MB/s",
        way,
        best,
        median(),
        rows / best / 1e6,
        bytes / best / 1e6);
  }
}
