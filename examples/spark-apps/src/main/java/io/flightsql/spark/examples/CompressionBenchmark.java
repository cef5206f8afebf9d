package io.flightsql.spark.examples;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Writes the same rows through the connector with option {@code compression} {@code none}, {@code
 * zstd} and {@code lz4}, over a TCP link through Toxiproxy to a server: first unlimited (loopback),
 * then limited to each bandwidth of {@code --mbits}, client to server. For each link and
 * compression it prints rows per second, the bytes on the wire and how both compare with {@code
 * none} on the same link, all measured in the same run.
 *
 * <p>The server ({@code --server}) is the embedded DuckDB server ({@link DuckDbCompressionServer}),
 * which drops the rows it decodes so that the figures are the client's and the link's, or
 * arrow-go's SQLite example ({@link SqliteCompressionServer}), a server this project did not write,
 * which stores them. The rows are {@link WriteBenchmark#lineitem}'s (in types the server can take),
 * cached in Spark before any timing; the megabytes of Arrow data are those of their Arrow buffers.
 * The server's row count is checked after every write, and on a server that keeps the rows, the
 * first write of each compression is read back and compared with the rows sent, row for row. On
 * each link every compression writes once to warm up, then they take turns for {@code --iterations}
 * rounds; the figures are medians.
 *
 * <pre>mvn -q -pl examples/spark-apps exec:exec@compression-benchmark
 * mvn -q -pl examples/spark-apps exec:exec@compression-benchmark -Dbenchmark.args="--server sqlite"
 * </pre>
 */
public final class CompressionBenchmark {
  static final String TABLE = "compression_benchmark";
  static final List<String> CODECS = List.of("none", "zstd", "lz4");

  private final CompressionBenchmarkArgs args;
  private final CompressionServer server;
  private final ToxiproxyLink link;

  private CompressionBenchmark(
      CompressionBenchmarkArgs args, CompressionServer server, ToxiproxyLink link) {
    this.args = args;
    this.server = server;
    this.link = link;
  }

  /** The timed writes of one compression on one link. */
  private record Cell(List<Double> seconds, List<Long> wireBytes) {
    Cell() {
      this(new ArrayList<>(), new ArrayList<>());
    }

    double medianSeconds() {
      return median(seconds);
    }

    double medianWireBytes() {
      return median(wireBytes.stream().map(Long::doubleValue).toList());
    }
  }

  public static void main(String[] commandLine) throws Exception {
    CompressionBenchmarkArgs args;
    try {
      args = CompressionBenchmarkArgs.parse(commandLine);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Path log = Files.createTempFile("toxiproxy-", ".log");
    try (CompressionServer server =
            args.server().equals("sqlite")
                ? SqliteCompressionServer.start(Files.createTempFile("sqlite-flightsql-", ".log"))
                : new DuckDbCompressionServer();
        ToxiproxyLink link = ToxiproxyLink.start(server.port(), log)) {
      new CompressionBenchmark(args, server, link).run();
    }
  }

  private void run() throws Exception {
    String loadBefore = loadAverage();
    SparkSession spark =
        SparkSession.builder()
            .appName("spark-flightsql compression benchmark")
            .master("local[2]")
            .config("spark.ui.enabled", false)
            // PrebuiltBatches, which measures the Arrow bytes, takes java.time values.
            .config("spark.sql.datetime.java8API.enabled", true)
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate();
    try (BufferAllocator allocator = new RootAllocator()) {
      ReadBenchmark.printEnvironment(spark);
      System.out.println("Load average before: " + loadBefore);
      System.out.println("Server: " + server.description());
      Dataset<Row> data = server.rows(spark, args.rows()).cache();
      data.count();
      long arrowBytes;
      try (PrebuiltBatches batches = PrebuiltBatches.build(data, allocator)) {
        arrowBytes = batches.bytes();
      }
      System.out.printf(
          Locale.ROOT,
          "Data: %,d rows, %,d bytes of Arrow buffers; %s%n",
          args.rows(),
          arrowBytes,
          data.schema().simpleString());

      Map<Integer, Map<String, Cell>> links = new LinkedHashMap<>();
      List<Integer> bandwidths = new ArrayList<>();
      bandwidths.add(0);
      bandwidths.addAll(args.megabits());
      for (int megabits : bandwidths) {
        link.limitUpstream(megabits);
        links.put(megabits, measure(data, megabits));
      }
      link.limitUpstream(0);
      data.unpersist(true);

      System.out.println();
      System.out.println("Load average after: " + loadAverage());
      System.out.println(
          "Medians of "
              + args.iterations()
              + " writes of "
              + String.format(Locale.ROOT, "%,d", args.rows())
              + " rows ("
              + String.format(Locale.ROOT, "%.1f", arrowBytes / 1e6)
              + " MB of Arrow buffers); MB = 10^6 bytes; ratios against none on the same link.");
      System.out.println();
      System.out.println(
          "| link | compression | time | rows/s | Arrow data MB/s | MB on the wire | wire MB/s"
              + " | rows/s vs none | wire bytes vs none |");
      System.out.println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
      for (Map.Entry<Integer, Map<String, Cell>> entry : links.entrySet()) {
        Cell none = entry.getValue().get("none");
        for (String codec : CODECS) {
          Cell cell = entry.getValue().get(codec);
          double seconds = cell.medianSeconds();
          double wire = cell.medianWireBytes();
          System.out.printf(
              Locale.ROOT,
              "| %s | %s | %.2f s | %.3f M | %.1f | %.1f | %.1f | %.2fx | %.2f |%n",
              entry.getKey() == 0 ? "unlimited" : entry.getKey() + " Mbit/s",
              codec,
              seconds,
              args.rows() / seconds / 1e6,
              arrowBytes / seconds / 1e6,
              wire / 1e6,
              wire / seconds / 1e6,
              none.medianSeconds() / seconds,
              wire / none.medianWireBytes());
        }
      }
    } finally {
      spark.stop();
    }
  }

  /**
   * Writes the rows once per compression to warm up, then {@code --iterations} rounds in which each
   * compression writes once, printing every write.
   */
  private Map<String, Cell> measure(Dataset<Row> data, int megabits) throws Exception {
    String linkName = megabits == 0 ? "unlimited" : megabits + " Mbit/s";
    String uri = "grpc://127.0.0.1:" + link.port();
    Map<String, Cell> cells = new LinkedHashMap<>();
    for (int round = 0; round <= args.iterations(); round++) {
      for (String codec : CODECS) {
        server.beforeWrite();
        System.gc();
        long bytesBefore = server.bytesReceived();
        long start = System.nanoTime();
        data.write()
            .format("flightsql")
            .options(server.writeOptions())
            .option("uri", uri)
            .option("dbtable", TABLE)
            .option("compression", codec)
            .mode("append")
            .save();
        double took = ReadBenchmark.seconds(start);
        long wire = server.bytesReceived() - bytesBefore;
        long rows = server.rowsWritten();
        if (rows != args.rows()) {
          throw new IllegalStateException(
              "The server received " + rows + " rows from a write of " + args.rows());
        }
        System.out.printf(
            Locale.ROOT,
            "%-12s %-5s %s %6.2f s, %,d bytes on the wire%n",
            linkName,
            codec,
            round == 0 ? "warm-up" : "run " + round + "  ",
            took,
            wire);
        if (round == 0 && megabits == 0) {
          System.out.printf(
              Locale.ROOT, "%-12s %-5s %s%n", linkName, codec, server.checkReadBack(data));
        }
        if (round > 0) {
          Cell cell = cells.computeIfAbsent(codec, c -> new Cell());
          cell.seconds().add(took);
          cell.wireBytes().add(wire);
        }
      }
    }
    return cells;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1
        ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }

  /** The system's load averages over 1, 5 and 15 minutes, where Linux tells them. */
  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return fields[0] + ", " + fields[1] + ", " + fields[2];
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }
}
