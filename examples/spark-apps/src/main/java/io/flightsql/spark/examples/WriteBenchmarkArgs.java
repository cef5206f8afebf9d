package io.flightsql.spark.examples;

/**
 * The command line of {@link WriteBenchmark}.
 *
 * @param rows rows that the connector and the raw client write in each run
 * @param jdbcRows rows that Spark's JDBC writer writes in each run, by default as many as {@code
 *     rows}; fewer make it quicker, but then its fixed costs weigh more in its rate; 0 skips it
 * @param peakRows rows of the final write whose memory is measured, 0 to skip that phase
 * @param iterations timed runs of each way, after one warm-up run
 * @param uri a running server to write to instead of the embedded one, or null
 */
record WriteBenchmarkArgs(long rows, long jdbcRows, long peakRows, int iterations, String uri) {

  static final String USAGE =
      "Usage: WriteBenchmark [--rows N (1000000)] [--jdbc-rows N (as --rows), 0 to skip]"
          + " [--peak-rows N (10000000), 0 to skip] [--iterations N (3)] [--uri grpc://host:port]";

  static WriteBenchmarkArgs parse(String[] args) {
    long rows = 1_000_000L;
    long jdbcRows = -1;
    long peakRows = 10_000_000L;
    int iterations = 3;
    String uri = null;
    for (int i = 0; i < args.length; i += 2) {
      String flag = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Flag '" + flag + "' needs a value. " + USAGE);
      }
      String value = args[i + 1];
      switch (flag) {
        case "--rows" -> rows = BenchmarkArgs.number(flag, value, 1, Long.MAX_VALUE);
        case "--jdbc-rows" -> jdbcRows = BenchmarkArgs.number(flag, value, 0, Long.MAX_VALUE);
        case "--peak-rows" -> peakRows = BenchmarkArgs.number(flag, value, 0, Long.MAX_VALUE);
        case "--iterations" ->
            iterations = (int) BenchmarkArgs.number(flag, value, 1, Integer.MAX_VALUE);
        case "--uri" -> uri = value;
        default -> throw new IllegalArgumentException("Unknown flag '" + flag + "'. " + USAGE);
      }
    }
    return new WriteBenchmarkArgs(rows, jdbcRows < 0 ? rows : jdbcRows, peakRows, iterations, uri);
  }
}
