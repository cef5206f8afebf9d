package io.flightsql.spark.examples;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

/**
 * Copies the same rows from one table of a Flight SQL server to another three ways in one run and
 * prints how fast each was, in rows per second, and each streaming way against the batch way:
 *
 * <ol>
 *   <li><b>batch copy</b>: {@code spark.read.format("flightsql")} of the source, {@code
 *       df.write.format("flightsql").mode("append")} into an empty table, with the default options
 *       (staged, committed in one transaction): the baseline.
 *   <li><b>streaming copy, one micro-batch</b>: {@code spark.readStream} of the source by its
 *       offset column, {@code writeStream} into an empty table, exactly once, with {@code
 *       Trigger.AvailableNow}: the same rows in one epoch, plus what a stream adds (the marks'
 *       queries, the epoch's marker, the checkpoint).
 *   <li><b>streaming copy, micro-batches of {@code --max-rows-per-trigger}</b>: the same, with
 *       admission control, as a stream that keeps up with a growing source runs: each epoch pays
 *       Spark's planning of a micro-batch, the connector's queries for its marks, the planning of
 *       its write and its commit.
 * </ol>
 *
 * <p>The source ({@link WriteBenchmark#lineitem}, {@code --rows} rows, offset column {@code
 * l_orderkey}) is written to the server once before any timing. Before each run the target table is
 * dropped and the checkpoint deleted; after it the benchmark counts the target's rows and stops if
 * any are missing or extra. Each way runs once to warm up, then the ways take turns for {@code
 * --iterations} rounds; the best round of each is printed.
 *
 * <pre>mvn -q -pl examples/spark-apps exec:exec@streaming-benchmark \
 *     -Dbenchmark.args="--rows 1000000 --max-rows-per-trigger 100000"</pre>
 */
public final class StreamingBenchmark {
  private static final String USAGE =
      "Usage: StreamingBenchmark [--rows N (1000000)] [--max-rows-per-trigger N (100000)]"
          + " [--iterations N (3)]";
  private static final String SOURCE = "streaming_benchmark_source";
  private static final String TARGET = "streaming_benchmark_copy";

  private final SparkSession spark;
  private final DuckDbFlightSqlServer server;
  private final Path checkpoints;
  private final long rows;
  private StreamingQuery lastQuery;

  private StreamingBenchmark(
      SparkSession spark, DuckDbFlightSqlServer server, Path checkpoints, long rows) {
    this.spark = spark;
    this.server = server;
    this.checkpoints = checkpoints;
    this.rows = rows;
  }

  public static void main(String[] args) throws Exception {
    long rows = 1_000_000L;
    long maxRows = 100_000L;
    int iterations = 3;
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        System.err.println("Flag '" + args[i] + "' needs a value. " + USAGE);
        System.exit(2);
      }
      switch (args[i]) {
        case "--rows" -> rows = BenchmarkArgs.number(args[i], args[i + 1], 1, Long.MAX_VALUE);
        case "--max-rows-per-trigger" ->
            maxRows = BenchmarkArgs.number(args[i], args[i + 1], 1, Integer.MAX_VALUE);
        case "--iterations" ->
            iterations =
                Math.toIntExact(BenchmarkArgs.number(args[i], args[i + 1], 1, Integer.MAX_VALUE));
        default -> {
          System.err.println("Unknown flag '" + args[i] + "'. " + USAGE);
          System.exit(2);
        }
      }
    }
    SparkSession spark =
        SparkSession.builder()
            .appName("spark-flightsql streaming benchmark")
            .master("local[2]")
            .config("spark.ui.enabled", false)
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", 2)
            .getOrCreate();
    try {
      ReadBenchmark.printEnvironment(spark);
      Figures figures = measure(spark, rows, maxRows, iterations);
      System.out.println();
      System.out.printf(
          Locale.ROOT,
          "%-52s %,12.0f rows/s (best of %d)%n",
          "batch copy",
          rows / figures.batch(),
          iterations);
      print(rows, "streaming copy, one micro-batch", figures.oneEpoch(), figures.batch());
      print(
          rows,
          figures.streamed() + " (" + figures.epochCount() + " epochs)",
          figures.epochs(),
          figures.batch());
      System.out.println("Last streaming copy with admission control: " + figures.epochPhases());
    } finally {
      spark.stop();
    }
  }

  /**
   * The best times of the three copies of {@code rows} rows.
   *
   * @param batch seconds of the batch copy
   * @param oneEpoch seconds of the streaming copy in one micro-batch
   * @param epochs seconds of the streaming copy in micro-batches of {@code maxRows}
   * @param epochCount how many micro-batches that copy ran
   * @param streamed the name of that copy
   * @param epochPhases where its last run's micro-batches spent their time
   */
  record Figures(
      double batch,
      double oneEpoch,
      double epochs,
      long epochCount,
      String streamed,
      String epochPhases) {}

  /**
   * Measures the three copies on an embedded DuckDB server of their own, with {@code maxRows} rows
   * a micro-batch in the third, best of {@code iterations} rounds after a warm-up round.
   */
  static Figures measure(SparkSession spark, long rows, long maxRows, int iterations)
      throws Exception {
    Path checkpoints = Files.createTempDirectory("flightsql-streaming-benchmark");
    try (DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).start()) {
      System.out.printf(
          Locale.ROOT, "Embedded DuckDB server at %s, %,d rows to copy%n", server.uri(), rows);
      return new StreamingBenchmark(spark, server, checkpoints, rows).run(maxRows, iterations);
    } finally {
      deleteTree(checkpoints);
    }
  }

  private Figures run(long maxRows, int iterations) throws Exception {
    WriteBenchmark.lineitem(spark, rows)
        .write()
        .format("flightsql")
        .option("uri", server.uri())
        .option("dbtable", SOURCE)
        .mode("overwrite")
        .save();
    String streamed = "streaming copy, micro-batches of " + String.format("%,d", maxRows);
    double[] best = new double[3];
    String epochPhases = null;
    for (int round = 0; round <= iterations; round++) {
      double batch = batchCopy();
      double oneEpoch = streamingCopy(0);
      double epochs = streamingCopy(maxRows);
      epochPhases = phases(lastQuery);
      if (round == 0) {
        continue;
      }
      best[0] = Math.min(best[0] == 0 ? Double.MAX_VALUE : best[0], batch);
      best[1] = Math.min(best[1] == 0 ? Double.MAX_VALUE : best[1], oneEpoch);
      best[2] = Math.min(best[2] == 0 ? Double.MAX_VALUE : best[2], epochs);
      System.out.printf(
          Locale.ROOT,
          "round %d: batch %.2f s, streaming (one micro-batch) %.2f s, %s %.2f s%n",
          round,
          batch,
          oneEpoch,
          streamed,
          epochs);
    }
    return new Figures(
        best[0], best[1], best[2], (rows + maxRows - 1) / maxRows, streamed, epochPhases);
  }

  private static void print(long rows, String way, double seconds, double batchSeconds) {
    System.out.printf(
        Locale.ROOT,
        "%-52s %,12.0f rows/s, %.2fx the batch copy's rate%n",
        way,
        rows / seconds,
        batchSeconds / seconds);
  }

  /** The seconds a batch copy took. */
  private double batchCopy() throws Exception {
    server.execute("DROP TABLE IF EXISTS " + TARGET);
    long start = System.nanoTime();
    spark
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .option("dbtable", SOURCE)
        .load()
        .write()
        .format("flightsql")
        .option("uri", server.uri())
        .option("dbtable", TARGET)
        .mode("append")
        .save();
    double seconds = (System.nanoTime() - start) / 1e9;
    checkCopied();
    return seconds;
  }

  /** The seconds a streaming copy took, with {@code maxRows} a micro-batch (0: no limit). */
  private double streamingCopy(long maxRows) throws Exception {
    server.execute("DROP TABLE IF EXISTS " + TARGET);
    Path checkpoint = checkpoints.resolve("checkpoint");
    deleteTree(checkpoint);
    long start = System.nanoTime();
    var reader =
        spark
            .readStream()
            .format("flightsql")
            .option("uri", server.uri())
            .option("dbtable", SOURCE)
            .option("offsetColumn", "l_orderkey");
    if (maxRows > 0) {
      reader = reader.option("maxRowsPerTrigger", Long.toString(maxRows));
    }
    StreamingQuery query =
        reader
            .load()
            .writeStream()
            .format("flightsql")
            .option("uri", server.uri())
            .option("dbtable", TARGET)
            .option("checkpointLocation", checkpoint.toString())
            .trigger(Trigger.AvailableNow())
            .start();
    query.awaitTermination();
    double seconds = (System.nanoTime() - start) / 1e9;
    checkCopied();
    lastQuery = query;
    return seconds;
  }

  /**
   * Where the micro-batches of {@code query} spent their time, on average, as their progress
   * reports it: Spark's own phases, {@code addBatch} being the batch's job (the read, the write's
   * tasks) and the sink's commit.
   */
  private static String phases(StreamingQuery query) {
    Map<String, Long> total = new TreeMap<>();
    int batches = 0;
    for (StreamingQueryProgress progress : query.recentProgress()) {
      if (progress.numInputRows() == 0) {
        continue;
      }
      batches++;
      progress.durationMs().forEach((phase, ms) -> total.merge(phase, ms, Long::sum));
    }
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, Long> phase : total.entrySet()) {
      out.append(out.length() > 0 ? ", " : "")
          .append(phase.getKey())
          .append(' ')
          .append(phase.getValue() / Math.max(1, batches))
          .append(" ms");
    }
    return batches + " micro-batches, each on average: " + out;
  }

  private void checkCopied() throws Exception {
    long copied;
    try (var connection = server.newConnection();
        var statement = connection.createStatement();
        var result =
            statement.executeQuery("SELECT count(*), count(DISTINCT l_orderkey) FROM " + TARGET)) {
      result.next();
      copied = result.getLong(1);
      if (copied != rows || result.getLong(2) != rows) {
        throw new IllegalStateException(
            "The copy has " + copied + " rows (" + result.getLong(2) + " distinct), not " + rows);
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
