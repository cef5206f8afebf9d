package io.flightsql.spark.examples;

/**
 * The command line of {@link ReadBenchmark}.
 *
 * @param rows rows of the embedded server's {@code lineitem} table
 * @param endpoints endpoints per query on the embedded server
 * @param iterations timed runs of each way, after one warm-up run
 * @param uri a running server to read from instead of the embedded one, or null
 */
record BenchmarkArgs(long rows, int endpoints, int iterations, String uri) {

  static final String USAGE =
      "Usage: ReadBenchmark [--rows N (1000000)] [--endpoints N (2)] [--iterations N (3)]"
          + " [--uri grpc://host:port]";

  static BenchmarkArgs parse(String[] args) {
    long rows = 1_000_000L;
    int endpoints = 2;
    int iterations = 3;
    String uri = null;
    for (int i = 0; i < args.length; i += 2) {
      String flag = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Flag '" + flag + "' needs a value. " + USAGE);
      }
      String value = args[i + 1];
      switch (flag) {
        case "--rows" -> rows = positive(flag, value);
        case "--endpoints" -> endpoints = Math.toIntExact(positive(flag, value));
        case "--iterations" -> iterations = Math.toIntExact(positive(flag, value));
        case "--uri" -> uri = value;
        default -> throw new IllegalArgumentException("Unknown flag '" + flag + "'. " + USAGE);
      }
    }
    return new BenchmarkArgs(rows, endpoints, iterations, uri);
  }

  private static long positive(String flag, String value) {
    return number(flag, value, 1, flag.equals("--rows") ? Long.MAX_VALUE : Integer.MAX_VALUE);
  }

  /**
   * The integer value of a flag, with underscores allowed between digits ({@code 1_000_000}); the
   * other benchmarks parse their flags with it too.
   *
   * @param min 0 or 1
   * @throws IllegalArgumentException naming the flag and the value when it is not in {@code
   *     min..max}
   */
  static long number(String flag, String value, long min, long max) {
    try {
      long parsed = Long.parseLong(value.replace("_", ""));
      if (parsed >= min && parsed <= max) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // Reported below, with what was expected.
    }
    throw new IllegalArgumentException(
        "Invalid value '"
            + value
            + "' for flag '"
            + flag
            + "': expected "
            + (min == 0 ? "0 or a positive integer" : "a positive integer"));
  }
}
