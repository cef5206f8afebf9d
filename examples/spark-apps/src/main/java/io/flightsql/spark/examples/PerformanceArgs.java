package io.flightsql.spark.examples;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The command line of {@link PerformanceBenchmark}: the sizes of each part, all with defaults, and
 * {@code --quick} for a smoke run at a tenth of the sizes or less.
 *
 * @param iterations timed runs of each way, after one warm-up run
 * @param runs timed runs of each way of the 10-row query
 * @param scanRows rows of the full scan
 * @param writeRows rows of each write
 * @param scaleRows the row counts of the scaling table, smallest first
 * @param endpointRows rows of the reads that vary the number of endpoints
 * @param scaleEndpoints the endpoint counts of the scaling table, smallest first
 * @param columnRows rows of the reads that vary the number of columns
 * @param scaleColumns the column counts of the scaling table, smallest first
 * @param parts the parts to run, of latency, scan, checks (the batch checks on and off, on the full
 *     scan's rows), write, scale, starjoin, streaming and servers (latency on every server of the
 *     matrix; all by default)
 * @param starRows rows of lineitem in the star joins
 * @param streamRows rows of the streaming and batch copies
 */
record PerformanceArgs(
    int iterations,
    int runs,
    long scanRows,
    long writeRows,
    List<Long> scaleRows,
    long endpointRows,
    List<Integer> scaleEndpoints,
    long columnRows,
    List<Integer> scaleColumns,
    Set<String> parts,
    long starRows,
    long streamRows) {

  static final Set<String> ALL_PARTS =
      Set.of("latency", "scan", "checks", "write", "scale", "starjoin", "streaming", "servers");

  static final String USAGE =
      "Usage: PerformanceBenchmark [--quick] [--iterations N (3)] [--runs N (20)]"
          + " [--parts latency,scan,checks,write,scale,starjoin,streaming,servers (all)]";

  static PerformanceArgs parse(String[] args) {
    boolean quick = false;
    int iterations = 3;
    int runs = 20;
    Set<String> parts = ALL_PARTS;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--quick")) {
        quick = true;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Flag '" + flag + "' needs a value. " + USAGE);
      }
      String value = args[++i];
      switch (flag) {
        case "--iterations" ->
            iterations = (int) BenchmarkArgs.number(flag, value, 1, Integer.MAX_VALUE);
        case "--runs" -> runs = (int) BenchmarkArgs.number(flag, value, 1, Integer.MAX_VALUE);
        case "--parts" -> parts = parts(value);
        default -> throw new IllegalArgumentException("Unknown flag '" + flag + "'. " + USAGE);
      }
    }
    if (quick) {
      return new PerformanceArgs(
          1,
          Math.min(runs, 5),
          100_000,
          100_000,
          List.of(100_000L, 400_000L),
          200_000,
          List.of(1, 2, 4, 8),
          20_000,
          List.of(16, 64, 256),
          parts,
          200_000,
          100_000);
    }
    return new PerformanceArgs(
        iterations,
        runs,
        1_000_000,
        1_000_000,
        List.of(1_000_000L, 4_000_000L, 16_000_000L),
        4_000_000,
        List.of(1, 2, 4, 8),
        250_000,
        List.of(16, 64, 256),
        parts,
        2_000_000,
        1_000_000);
  }

  private static Set<String> parts(String value) {
    Set<String> parts = new LinkedHashSet<>(Arrays.asList(value.split(",")));
    if (parts.isEmpty() || !ALL_PARTS.containsAll(parts)) {
      throw new IllegalArgumentException(
          "Invalid value '" + value + "' for flag '--parts': expected some of " + ALL_PARTS);
    }
    return parts;
  }
}
