package io.flightsql.spark.examples;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Interactive latency on every server of the matrix: on each ({@link LatencyServers}: the embedded
 * DuckDB server, arrow-go's SQLite example, Arrow's Derby example, Sail and Deephaven, started as
 * the integration tests start them, each holding the same 100-row table), a 10-row query end to end
 * with {@code collect()}, through the connector and through Spark's JDBC source with the Arrow
 * Flight SQL JDBC driver on the same server, in one session: after a first read of each, {@code
 * --runs} reads of each, alternated; the medians, their ratio against the goal (1.5x), and the
 * first reads of a fresh JVM per server and way (a child JVM each: Spark's own first job, then the
 * way's first read, which is the connector's or the driver's share, then a second read).
 *
 * <p>Arguments: {@code --servers duckdb,sqlite,derby,sail,deephaven} (all), {@code --runs N} (20),
 * {@code --no-fresh-jvm} to skip the child JVMs.
 *
 * <pre>
 * mvn -q -pl examples/spark-apps exec:exec@server-latency [-Dbenchmark.args="--servers sqlite"]
 * </pre>
 */
// Flight's clients and the servers' launchers may throw InterruptedException from close(); the
// benchmark passes it on.
@SuppressWarnings("try")
public final class ServerLatencyBenchmark {
  static final String GOAL = "≥ 1.5x";

  /**
   * The connector's first read in a JVM whose Spark started with {@code
   * spark.plugins=io.flightsql.spark.FlightSqlPlugin}, which loads the connector's classes while
   * Spark starts.
   */
  private static final String PLUGIN_WAY = "flightsql-plugin";

  private ServerLatencyBenchmark() {}

  /** One server's figures, in milliseconds; {@code jdbcFailure} says why JDBC could not read. */
  record Line(
      String server,
      double connectorMedian,
      double jdbcMedian,
      String jdbcFailure,
      double sparkMedian,
      FreshJvm connectorFresh,
      FreshJvm pluginFresh,
      FreshJvm jdbcFresh) {
    double ratio() {
      return jdbcMedian / connectorMedian;
    }
  }

  /** A fresh JVM's first 10-row Spark job, then its first and second read of one way, in ms. */
  record FreshJvm(double sparkFirstJob, double firstRead, double secondRead) {
    static final FreshJvm NONE = new FreshJvm(Double.NaN, Double.NaN, Double.NaN);
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--fresh-jvm")) {
      freshJvm(args);
      return;
    }
    List<String> servers = LatencyServers.ALL;
    int runs = 20;
    boolean fresh = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--servers":
          servers = List.of(args[++i].split(","));
          break;
        case "--runs":
          runs = Integer.parseInt(args[++i]);
          break;
        case "--no-fresh-jvm":
          fresh = false;
          break;
        default:
          System.err.println(
              "Unknown argument " + args[i] + "; expected --servers a,b --runs N --no-fresh-jvm");
          System.exit(2);
      }
    }
    SparkSession spark =
        SparkSession.builder()
            .appName("spark-flightsql latency per server")
            .master("local[2]")
            .config("spark.ui.enabled", false)
            .getOrCreate();
    try {
      ReadBenchmark.printEnvironment(spark);
      List<Line> lines = measure(spark, servers, runs, fresh);
      print(lines, runs);
    } finally {
      spark.stop();
    }
    // Arrow's Derby example leaves a pool of non-daemon threads running after it is closed.
    System.exit(0);
  }

  /** Measures each server in turn, each started, loaded, measured and stopped on its own. */
  static List<Line> measure(SparkSession spark, List<String> servers, int runs, boolean fresh)
      throws Exception {
    List<Line> lines = new ArrayList<>();
    for (String name : servers) {
      long start = System.nanoTime();
      try (LatencyServers.Running server = LatencyServers.start(name)) {
        System.out.printf(
            Locale.ROOT,
            "%s (%s) at %s, loaded in %.1f s%n",
            name,
            server.version(),
            server.uri(),
            ReadBenchmark.seconds(start));
        Line line = measure(spark, server, runs, fresh);
        lines.add(line);
        System.out.printf(
            Locale.ROOT,
            "%s: flightsql %.1f ms, jdbc %.1f ms (median of %d)%n",
            name,
            line.connectorMedian(),
            line.jdbcMedian(),
            runs);
      }
    }
    return lines;
  }

  private static Line measure(
      SparkSession spark, LatencyServers.Running server, int runs, boolean fresh) throws Exception {
    spark.range(1000).selectExpr("sum(id)").collect();
    Supplier<List<Row>> connector = () -> connectorRead(spark, server);
    Supplier<List<Row>> jdbc = () -> jdbcRead(spark, server);
    Supplier<List<Row>> sparkAlone = () -> spark.range(0, 10, 1, 1).toDF().collectAsList();
    String jdbcFailure = null;
    LatencyBenchmark.once(connector);
    try {
      LatencyBenchmark.once(jdbc);
    } catch (Exception e) { // Spark passes the driver's SQLException on undeclared
      jdbcFailure = firstLine(e);
      System.out.println(server.name() + ": Spark's JDBC source cannot read: " + jdbcFailure);
    }
    Timings connectorRuns = new Timings(server.name() + " flightsql");
    Timings jdbcRuns = new Timings(server.name() + " jdbc");
    Timings sparkRuns = new Timings("spark alone");
    for (int i = 0; i < runs; i++) {
      connectorRuns.add(LatencyBenchmark.once(connector));
      if (jdbcFailure == null) {
        jdbcRuns.add(LatencyBenchmark.once(jdbc));
      }
      sparkRuns.add(LatencyBenchmark.once(sparkAlone));
    }
    FreshJvm connectorFresh = fresh ? freshJvm(server, "flightsql") : FreshJvm.NONE;
    FreshJvm pluginFresh = fresh ? freshJvm(server, PLUGIN_WAY) : FreshJvm.NONE;
    FreshJvm jdbcFresh = fresh && jdbcFailure == null ? freshJvm(server, "jdbc") : FreshJvm.NONE;
    return new Line(
        server.name(),
        connectorRuns.median(),
        jdbcFailure == null ? jdbcRuns.median() : Double.NaN,
        jdbcFailure,
        sparkRuns.median(),
        connectorFresh,
        pluginFresh,
        jdbcFresh);
  }

  static List<Row> connectorRead(SparkSession spark, LatencyServers.Running server) {
    return spark
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .options(server.options())
        .option("query", LatencyServers.QUERY)
        .load()
        .collectAsList();
  }

  static List<Row> jdbcRead(SparkSession spark, LatencyServers.Running server) {
    return spark
        .read()
        .format("jdbc")
        .option("url", server.jdbcUrl())
        .option("driver", ReadBenchmark.JDBC_DRIVER)
        .option("query", LatencyServers.QUERY)
        .load()
        .collectAsList();
  }

  // ---- The first reads of a fresh JVM

  /** Runs this class in a child JVM for one way's first reads of the running server. */
  private static FreshJvm freshJvm(LatencyServers.Running server, String way) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (flag.startsWith("--add-opens") || flag.startsWith("-D")) {
        command.add(flag);
      }
    }
    command.addAll(List.of("-Xmx2g", "-cp", System.getProperty("java.class.path")));
    command.addAll(
        List.of(
            ServerLatencyBenchmark.class.getName(),
            "--fresh-jvm",
            way,
            server.name(),
            server.uri(),
            server.jdbcUrl()));
    server.options().forEach((k, v) -> command.add(k + "=" + v));
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    FreshJvm figures = null;
    List<String> output = new ArrayList<>();
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        output.add(line);
        if (line.startsWith("FRESH-JVM ")) {
          String[] parts = line.split(" ");
          figures =
              new FreshJvm(
                  Double.parseDouble(parts[1]),
                  Double.parseDouble(parts[2]),
                  Double.parseDouble(parts[3]));
        }
      }
    }
    if (!child.waitFor(5, TimeUnit.MINUTES) || figures == null) {
      child.destroyForcibly();
      throw new IllegalStateException(
          "The fresh JVM of "
              + way
              + " on "
              + server.name()
              + " failed:\n"
              + String.join("\n", output.subList(Math.max(0, output.size() - 20), output.size())));
    }
    return figures;
  }

  /** The child: {@code --fresh-jvm way server uri jdbcUrl [option=value...]}. */
  private static void freshJvm(String[] args) {
    String way = args[1];
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 5; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      options.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    LatencyServers.Running server =
        new LatencyServers.Running(args[2], "", args[3], options, args[4], () -> {});
    SparkSession.Builder builder =
        SparkSession.builder()
            .appName("spark-flightsql first read")
            .master("local[2]")
            .config("spark.ui.enabled", false);
    if (way.equals(PLUGIN_WAY)) {
      builder = builder.config("spark.plugins", "io.flightsql.spark.FlightSqlPlugin");
    }
    SparkSession spark = builder.getOrCreate();
    try {
      double sparkFirstJob =
          LatencyBenchmark.once(() -> spark.range(0, 10, 1, 1).toDF().collectAsList());
      Supplier<List<Row>> read =
          way.equals("jdbc") ? () -> jdbcRead(spark, server) : () -> connectorRead(spark, server);
      double first = LatencyBenchmark.once(read);
      double second = LatencyBenchmark.once(read);
      System.out.printf(Locale.ROOT, "FRESH-JVM %.1f %.1f %.1f%n", sparkFirstJob, first, second);
    } finally {
      spark.stop();
    }
  }

  // ---- The table

  private static void print(List<Line> lines, int runs) {
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "Query: %s (10 of 100 rows, checked on every run); medians of %d runs each, alternated,"
            + " after a first read; fresh JVM: a child JVM per server and way.%n%n",
        LatencyServers.QUERY,
        runs);
    System.out.println(
        "| server | flightsql median | jdbc median | jdbc / flightsql | goal "
            + GOAL
            + " | Spark alone (10-row job) | fresh JVM: Spark's first job | flightsql first read"
            + " (then second) | with FlightSqlPlugin: Spark's first job, first read (then"
            + " second) | jdbc first read (then second) |");
    System.out.println("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
    for (Line line : lines) {
      boolean compared = line.jdbcFailure() == null;
      System.out.printf(
          Locale.ROOT,
          "| %s | %.1f ms | %s | %s | %s | %.1f ms | %s | %s | %s, %s | %s |%n",
          line.server(),
          line.connectorMedian(),
          compared ? String.format(Locale.ROOT, "%.1f ms", line.jdbcMedian()) : "—",
          compared ? String.format(Locale.ROOT, "%.2fx", line.ratio()) : "—",
          compared ? (line.ratio() >= 1.5 ? "met" : "not met") : "no JDBC baseline",
          line.sparkMedian(),
          ms(line.connectorFresh().sparkFirstJob()),
          pair(line.connectorFresh()),
          ms(line.pluginFresh().sparkFirstJob()),
          pair(line.pluginFresh()),
          pair(line.jdbcFresh()));
    }
    for (Line line : lines) {
      if (line.jdbcFailure() != null) {
        System.out.println(
            "\n" + line.server() + ": Spark's JDBC source cannot read it: " + line.jdbcFailure());
      }
    }
  }

  private static String ms(double millis) {
    return Double.isNaN(millis) ? "—" : String.format(Locale.ROOT, "%.0f ms", millis);
  }

  private static String pair(FreshJvm fresh) {
    return Double.isNaN(fresh.firstRead())
        ? "—"
        : String.format(Locale.ROOT, "%.0f ms (%.0f ms)", fresh.firstRead(), fresh.secondRead());
  }

  static String firstLine(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = String.valueOf(root.getMessage()).strip();
    int newline = message.indexOf('\n');
    return root.getClass().getSimpleName()
        + ": "
        + (newline < 0 ? message : message.substring(0, newline));
  }
}
