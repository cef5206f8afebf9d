package io.flightsql.spark.examples;

import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@link CompressionBenchmark}.
 *
 * @param server {@code duckdb} (the embedded server) or {@code sqlite} (arrow-go's SQLite example)
 * @param rows rows that each write sends
 * @param iterations timed writes of each compression on each link, after one warm-up write
 * @param megabits the bandwidths, in megabits per second, of the limited links measured after the
 *     unlimited one
 */
record CompressionBenchmarkArgs(String server, long rows, int iterations, List<Integer> megabits) {

  static final String USAGE =
      "Usage: CompressionBenchmark [--server duckdb|sqlite (duckdb)]"
          + " [--rows N (duckdb 1000000, sqlite 200000)] [--iterations N (3)]"
          + " [--mbits N,N,... (duckdb 1000,100, sqlite 100,10): limited links, after the"
          + " unlimited one]";

  static CompressionBenchmarkArgs parse(String[] args) {
    String server = "duckdb";
    Long rows = null;
    int iterations = 3;
    List<Integer> megabits = null;
    for (int i = 0; i < args.length; i += 2) {
      String flag = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Flag '" + flag + "' needs a value. " + USAGE);
      }
      String value = args[i + 1];
      switch (flag) {
        case "--server" -> server = server(value);
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
    // SQLite inserts one row at a time, so its defaults keep a run to a few minutes.
    boolean sqlite = server.equals("sqlite");
    return new CompressionBenchmarkArgs(
        server,
        rows != null ? rows : sqlite ? 200_000L : 1_000_000L,
        iterations,
        megabits != null ? megabits : sqlite ? List.of(100, 10) : List.of(1000, 100));
  }

  private static String server(String value) {
    if (value.equals("duckdb") || value.equals("sqlite")) {
      return value;
    }
    throw new IllegalArgumentException(
        "Invalid value '" + value + "' for flag '--server': expected duckdb or sqlite");
  }
}
