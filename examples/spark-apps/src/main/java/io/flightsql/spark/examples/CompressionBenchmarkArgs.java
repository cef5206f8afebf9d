package io.flightsql.spark.examples;

import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@link CompressionBenchmark}.
 *
 * @param rows rows that each write sends
 * @param iterations timed writes of each compression on each link, after one warm-up write
 * @param megabits the bandwidths, in megabits per second, of the limited links measured after the
 *     unlimited one
 */
record CompressionBenchmarkArgs(long rows, int iterations, List<Integer> megabits) {

  static final String USAGE =
      "Usage: CompressionBenchmark [--rows N (1000000)] [--iterations N (3)]"
          + " [--mbits N,N,... (1000,100): limited links, after the unlimited one]";

  static CompressionBenchmarkArgs parse(String[] args) {
    long rows = 1_000_000L;
    int iterations = 3;
    List<Integer> megabits = List.of(1000, 100);
    for (int i = 0; i < args.length; i += 2) {
      String flag = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Flag '" + flag + "' needs a value. " + USAGE);
      }
      String value = args[i + 1];
      switch (flag) {
        case "--rows" -> rows = BenchmarkArgs.number(flag, value, 1, Long.MAX_VALUE);
        case "--iterations" ->
            iterations = (int) BenchmarkArgs.number(flag, value, 1, Integer.MAX_VALUE);
        case "--mbits" -> {
          List<Integer> parsed = new ArrayList<>();
          for (String part : value.split(",")) {
            parsed.add((int) BenchmarkArgs.number(flag, part.trim(), 1, 100_000));
          }
          megabits = List.copyOf(parsed);
        }
        default -> throw new IllegalArgumentException("Unknown flag '" + flag + "'. " + USAGE);
      }
    }
    return new CompressionBenchmarkArgs(rows, iterations, megabits);
  }
}
