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
    long parsed;
    try {
      parsed = Long.parseLong(value.replace("_", ""));
    } catch (NumberFormatException e) {
      parsed = 0;
    }
    if (parsed <= 0 || (!flag.equals("--rows") && parsed > Integer.MAX_VALUE)) {
      throw new IllegalArgumentException(
          "Invalid value '" + value + "' for flag '" + flag + "': expected a positive integer");
    }
    return parsed;
  }
}
