package io.flightsql.spark.examples;

import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Every performance figure of the connector in one run, printed as one markdown table that
 * docs/performance.md quotes: interactive latency, a full scan against the raw Arrow client and
 * Spark's JDBC source, the write ceiling against Spark's {@code noop} sink, and how time and memory
 * grow with rows, endpoints and columns. Every ratio compares two ways measured in this run;
 * nothing here is a timed assertion.
 *
 * <p>Servers are embedded DuckDB Flight SQL servers in this JVM, started for each part: writes go
 * to one started without {@code RowStorage} (rows counted and dropped, so the figures are the
 * client's, not DuckDB's inserts), and the scaling reads to ones started without {@code
 * QueryPerEndpoint} (a query runs once and its endpoints are cheap slices of the result).
 *
 * <pre>mvn -q -pl examples/spark-apps exec:exec@performance [-Dbenchmark.args="--quick"]</pre>
 */
public final class PerformanceBenchmark {

  private static final String SCAN = "SELECT * FROM lineitem";
  private static final double MIB = 1024.0 * 1024.0;

  private final PerformanceArgs args;
  private final SparkSession spark;
  private final BufferAllocator allocator;
  private final List<String> table = new ArrayList<>();

  private PerformanceBenchmark(
      PerformanceArgs args, SparkSession spark, BufferAllocator allocator) {
    this.args = args;
    this.spark = spark;
    this.allocator = allocator;
  }

  public static void main(String[] commandLine) throws Exception {
    PerformanceArgs args;
    try {
      args = PerformanceArgs.parse(commandLine);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    SparkSession spark =
        SparkSession.builder()
            .appName("spark-flightsql performance benchmark")
            .master("local[2]")
            .config("spark.ui.enabled", false)
            // The raw writer's batches are built from rows with java.time values, free of the
            // JVM's time zone.
            .config("spark.sql.datetime.java8API.enabled", true)
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate();
    long start = System.nanoTime();
    try (BufferAllocator allocator = new RootAllocator()) {
      PerformanceBenchmark benchmark = new PerformanceBenchmark(args, spark, allocator);
      ReadBenchmark.printEnvironment(spark);
      if (args.parts().contains("latency")) {
        benchmark.latency();
      }
      if (args.parts().contains("scan")) {
        benchmark.fullScan();
      }
      if (args.parts().contains("write")) {
        benchmark.writes();
      }
      if (args.parts().contains("scale")) {
        benchmark.scaling();
      }
      if (args.parts().contains("starjoin")) {
        benchmark.starJoins();
      }
      if (args.parts().contains("servers")) {
        benchmark.latencyPerServer();
      }
      benchmark.print(ReadBenchmark.seconds(start));
    } finally {
      spark.stop();
    }
    // Arrow's Derby example (part servers) leaves a pool of non-daemon threads running.
    System.exit(0);
  }

  // ---- Interactive latency

  private void latency() throws Exception {
    try (DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder().port(0).endpoints(1).lineitemRows(100_000).start()) {
      LatencyBenchmark.Figures figures = LatencyBenchmark.measure(spark, server.uri(), args.runs());
      String median = "median of " + args.runs() + ", collect()";
      add(
          "latency",
          "10-row query, " + median,
          ms(figures.connectorMedian()),
          "jdbc " + ms(figures.jdbcMedian()),
          ratio(figures.jdbcMedian() / figures.connectorMedian()),
          "≥ 1.5x");
      add(
          "latency",
          "Spark's own floor: a 10-row local job, " + median,
          ms(figures.sparkMedian()),
          "",
          "",
          "");
      add(
          "latency",
          "first read of the JVM (Spark warm)",
          ms(figures.connectorFirst()),
          "jdbc " + ms(figures.jdbcFirst()),
          ratio(figures.jdbcFirst() / figures.connectorFirst()),
          "report");
    }
  }

  // ---- Full scan: raw client, connector, Spark's JDBC source

  private void fullScan() throws Exception {
    long rows = args.scanRows();
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().port(0).endpoints(2).lineitemRows(rows).start();
        RawFlightSqlReader raw = new RawFlightSqlReader(server.uri(), allocator)) {
      String uri = server.uri();
      RawFlightSqlReader.Result reference = raw.read(SCAN);
      expect(reference.rows(), rows, "the raw client");
      expect(connector(uri, SCAN).count(), rows, "flightsql");
      ReadBenchmark.JdbcBounds bounds = ReadBenchmark.jdbcBounds(uri);
      if (bounds.failure() != null) {
        throw new IllegalStateException("Spark's JDBC baseline cannot run: " + bounds.failure());
      }
      Timings rawTimings = measure("scan raw client", () -> raw.read(SCAN));
      Timings flightsql =
          measure("scan flightsql", () -> ReadBenchmark.writeToNoop(connector(uri, SCAN)));
      Timings jdbc =
          measure(
              "scan spark jdbc",
              () -> ReadBenchmark.writeToNoop(ReadBenchmark.jdbcRead(spark, uri, bounds, 2)));
      String what =
          String.format(
              Locale.ROOT,
              "full scan of %s lineitem rows (%s MB), 2 endpoints, best of %d",
              count(rows),
              mb(reference.bytes()),
              args.iterations());
      add(
          "full scan",
          what,
          rate(rows, flightsql.best()),
          "raw client " + rate(rows, rawTimings.best()),
          ratio(rawTimings.best() / flightsql.best()),
          "≥ 0.7x");
      add(
          "full scan",
          what,
          rate(rows, flightsql.best()),
          "spark jdbc " + rate(rows, jdbc.best()),
          ratio(jdbc.best() / flightsql.best()),
          "keep ahead");
    }
  }

  // ---- The write ceiling

  /**
   * One way of writing and its timings; {@code counted} when the server counts its rows. For the
   * connector's ways, {@code waiting} gets each run's share of its tasks' time spent sending
   * batches and waiting for the server to take them (the connector's metric).
   */
  private record WriteWay(
      String name, Timings timings, boolean counted, Timings.Run run, Timings waiting) {
    WriteWay(String name, boolean counted, Timings.Run run) {
      this(name, new Timings(name), counted, run, new Timings(name + ", waiting"));
    }
  }

  /** What a DataFrame write reports as an accumulator of its stage (docs/writing.md). */
  private static final String SERVER_WAIT_ACCUMULATOR =
      "time waiting for the Flight SQL server (ms)";

  private void writes() throws Exception {
    long rows = args.writeRows();
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).without("RowStorage").start();
        RawFlightSqlWriter raw = new RawFlightSqlWriter(server.uri(), allocator)) {
      String uri = server.uri();
      Dataset<Row> data = WriteBenchmark.lineitem(spark, rows).cache();
      data.count();
      try (PrebuiltBatches batches = PrebuiltBatches.build(data, allocator)) {
        Schema schema = batches.schema();
        // The connector's tasks write into the table (atomic=false): the ceiling is the upload's.
        // The default's staging costs a server-side copy, which this server (without row storage)
        // would not pay; WriteBenchmark measures it, and the fixed cost below includes it.
        List<WriteWay> ways =
            List.of(
                new WriteWay("noop", false, () -> ReadBenchmark.writeToNoop(data)),
                new WriteWay(
                    "flightsql ingest",
                    true,
                    () -> WriteBenchmark.connectorWrite(data, uri, "ingest", "false")),
                new WriteWay(
                    "flightsql prepared",
                    true,
                    () -> WriteBenchmark.connectorWrite(data, uri, "prepared", "false")),
                new WriteWay(
                    "raw client DoPut", true, () -> raw.ingest(WriteBenchmark.TABLE, batches)),
                new WriteWay("spark jdbc", true, () -> WriteBenchmark.jdbcWrite(data, uri)));
        Allocators.resetLargestPeaks();
        // Rounds in which every way runs once: a change of the machine's load touches all alike.
        for (int round = 0; round <= args.iterations(); round++) {
          for (WriteWay way : ways) {
            raw.recreate(WriteBenchmark.TABLE, schema);
            System.gc();
            long before = server.discardedRows();
            long start = System.nanoTime();
            way.run().run();
            double took = ReadBenchmark.seconds(start);
            if (way.counted()) {
              expect(server.discardedRows() - before, rows, way.name());
            }
            System.out.printf(
                Locale.ROOT,
                "%-20s %s %6.2f s%n",
                way.name(),
                round == 0 ? "warm-up" : "run " + round + "  ",
                took);
            if (round > 0) {
              way.timings().add(took);
              if (way.name().startsWith("flightsql")) {
                long waitMillis = SqlMetrics.latestStageAccumulator(spark, SERVER_WAIT_ACCUMULATOR);
                int tasks = spark.sparkContext().defaultParallelism();
                way.waiting().add(waitMillis / (tasks * took * 1000));
              }
            }
          }
        }
        raw.drop(WriteBenchmark.TABLE);
        long taskPeak = Allocators.largestPeakBytes("flightsql-write");
        long batch = batches.bytes() / batches.batchCount();
        double noop = ways.get(0).timings().median();
        double jdbc = ways.get(4).timings().median();
        String what =
            String.format(
                Locale.ROOT,
                "write of %s cached rows (%s MB), median of %d",
                count(rows),
                mb(batches.bytes()),
                args.iterations());
        for (WriteWay way : ways.subList(1, 3)) {
          double took = way.timings().median();
          add(
              "write",
              way.name() + ", " + what,
              rate(rows, took),
              "noop " + rate(rows, noop),
              ratio(noop / took),
              "≥ 0.6x");
          add(
              "write",
              way.name() + ", " + what,
              rate(rows, took),
              "spark jdbc " + rate(rows, jdbc),
              ratio(jdbc / took),
              "≥ 20x");
          add(
              "write",
              way.name() + ": share of its tasks' time spent sending and waiting for the server",
              String.format(Locale.ROOT, "%.0f%%", 100 * way.waiting().median()),
              "",
              "",
              "");
        }
        double[] fixed = fixedWriteCost(uri, raw, schema);
        add(
            "write",
            "fixed cost: a write of 1 row (atomic=false), median of " + args.runs(),
            ms(fixed[1]),
            "noop " + ms(fixed[0]),
            ratio(fixed[0] / fixed[1]),
            "");
        add(
            "write",
            "fixed cost: a staged write of 1 row (the default), median of " + args.runs(),
            ms(fixed[2]),
            "noop " + ms(fixed[0]),
            ratio(fixed[0] / fixed[2]),
            "");
        double rawTook = ways.get(3).timings().median();
        add(
            "write",
            "raw client, one DoPut of prebuilt batches, " + what,
            rate(rows, rawTook),
            "noop " + rate(rows, noop),
            ratio(noop / rawTook),
            "");
        add(
            "memory",
            "peak Arrow memory of one write task",
            mib(taskPeak),
            "batch " + mib(batch),
            batches(taskPeak, batch),
            "≤ 2 batches");
      } finally {
        data.unpersist(true);
      }
    }
  }

  /**
   * What a write costs whatever its size: the medians of {@code --runs} writes of one row to {@code
   * noop}, through the connector writing into the table (ingest, {@code atomic=false}) and through
   * the connector with its defaults (a staging table, then the commit's transaction), alternated,
   * in milliseconds.
   */
  private double[] fixedWriteCost(String uri, RawFlightSqlWriter raw, Schema schema)
      throws Exception {
    Dataset<Row> one = WriteBenchmark.lineitem(spark, 1).coalesce(1).cache();
    one.count();
    raw.recreate(WriteBenchmark.TABLE, schema);
    Timings noop = new Timings("noop, 1 row");
    Timings connector = new Timings("flightsql, 1 row");
    Timings staged = new Timings("flightsql staged, 1 row");
    for (int i = 0; i <= args.runs(); i++) {
      long start = System.nanoTime();
      ReadBenchmark.writeToNoop(one);
      double noopMillis = (System.nanoTime() - start) / 1e6;
      start = System.nanoTime();
      WriteBenchmark.connectorWrite(one, uri, "ingest", "false");
      double connectorMillis = (System.nanoTime() - start) / 1e6;
      start = System.nanoTime();
      WriteBenchmark.connectorWrite(one, uri, "ingest", "auto");
      double stagedMillis = (System.nanoTime() - start) / 1e6;
      if (i > 0) {
        noop.add(noopMillis);
        connector.add(connectorMillis);
        staged.add(stagedMillis);
      }
    }
    one.unpersist(true);
    return new double[] {noop.median(), connector.median(), staged.median()};
  }

  // ---- How cost grows

  private void scaling() throws Exception {
    long largest = args.scaleRows().get(args.scaleRows().size() - 1);
    try (DuckDbFlightSqlServer server = slicingServer(2, largest)) {
      Cell base = null;
      for (long rows : args.scaleRows()) {
        String name = "lineitem";
        if (rows != largest) {
          name = "lineitem_" + rows;
          server.execute("CREATE TABLE " + name + " AS SELECT * FROM lineitem LIMIT " + rows);
        }
        Cell cell = cell(server, "SELECT * FROM " + name, rows);
        base = base == null ? cell : base;
        add(
            "scale: rows",
            count(rows) + " rows, 16 columns, 2 endpoints",
            cell.describe(),
            "rows/s vs " + count(base.rows),
            ratio(base.secondsPerRow() / cell.secondsPerRow()),
            "≈ 1x (linear)");
      }
    }
    Cell base = null;
    for (int endpoints : args.scaleEndpoints()) {
      try (DuckDbFlightSqlServer server = slicingServer(endpoints, args.endpointRows())) {
        Cell cell = cell(server, SCAN, args.endpointRows());
        base = base == null ? cell : base;
        add(
            "scale: endpoints",
            endpoints
                + " endpoint"
                + (endpoints == 1 ? "" : "s")
                + ", "
                + count(args.endpointRows())
                + " rows",
            cell.describe(),
            "speed vs 1 endpoint",
            ratio(base.seconds / cell.seconds),
            "");
      }
    }
    try (DuckDbFlightSqlServer server = slicingServer(2, args.columnRows())) {
      base = null;
      for (int columns : args.scaleColumns()) {
        String name = "wide_" + columns;
        server.execute(
            "CREATE TABLE " + name + " AS SELECT " + wideColumns(columns) + " FROM lineitem");
        Cell cell = cell(server, "SELECT * FROM " + name, args.columnRows());
        base = base == null ? cell : base;
        add(
            "scale: columns",
            columns + " columns, " + count(args.columnRows()) + " rows, 2 endpoints",
            cell.describe(),
            "MB/s vs " + args.scaleColumns().get(0) + " columns",
            ratio((base.seconds / base.bytes) / (cell.seconds / cell.bytes)),
            "≈ 1x (linear)");
      }
    }
  }

  private static DuckDbFlightSqlServer slicingServer(int endpoints, long rows) throws IOException {
    long start = System.nanoTime();
    DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder()
            .port(0)
            .endpoints(endpoints)
            .lineitemRows(rows)
            .without("QueryPerEndpoint")
            .start();
    System.out.printf(
        Locale.ROOT,
        "Server with %d endpoint(s) as cheap slices, lineitem %,d rows (%.1f s to load)%n",
        endpoints,
        rows,
        ReadBenchmark.seconds(start));
    return server;
  }

  /** The 16 columns of lineitem, repeated to {@code columns}, each copy renamed. */
  private static String wideColumns(int columns) {
    String[] names = {
      "l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice",
      "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate",
      "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"
    };
    StringJoiner select = new StringJoiner(", ");
    for (int i = 0; i < columns; i++) {
      String name = names[i % names.length];
      select.add(name + " AS " + name + "_" + (i / names.length));
    }
    return select.toString();
  }

  /**
   * One cell of the scaling table: a connector read of the query to {@code noop}, its best time,
   * the Arrow bytes the raw client received for it, and the most Arrow memory any one read
   * partition held.
   */
  private record Cell(long rows, long bytes, double seconds, long partitionPeak, long batch) {
    double secondsPerRow() {
      return seconds / rows;
    }

    String describe() {
      return String.format(
              Locale.ROOT,
              "%.2f s, %s, %s MB/s; ",
              seconds,
              rate(rows, seconds),
              mb(bytes / seconds))
          + "partition peak "
          + mib(partitionPeak)
          + " = "
          + batches(partitionPeak, batch);
    }
  }

  private Cell cell(DuckDbFlightSqlServer server, String sql, long rows) throws Exception {
    String uri = server.uri();
    RawFlightSqlReader.Result reference;
    try (RawFlightSqlReader raw = new RawFlightSqlReader(uri, allocator)) {
      reference = raw.read(sql);
    }
    expect(reference.rows(), rows, "the raw client");
    Allocators.resetLargestPeaks();
    Timings timings =
        measure(
            sql + " (" + reference.endpoints() + " endpoints)",
            () -> ReadBenchmark.writeToNoop(connector(uri, sql)));
    long peak = Allocators.largestPeakBytes("flightsql-partition");
    return new Cell(rows, reference.bytes(), timings.best(), peak, reference.largestBatch());
  }

  // ---- Star joins: statistics, runtime filters and join pushdown, each on and off

  private void starJoins() throws Exception {
    long rows = args.starRows();
    for (StarJoinBenchmark.Line line : StarJoinBenchmark.measure(spark, rows, args.iterations())) {
      add(
          "star join",
          line.what() + ", " + count(rows) + " lineitem rows, best of " + args.iterations(),
          line.on().describe(),
          line.off().describe(),
          ratio(line.off().seconds() / line.on().seconds()),
          "report");
    }
  }

  // ---- Helpers

  private Timings measure(String label, Timings.Run run) throws Exception {
    return Timings.measure(label, args.iterations(), run);
  }

  private Dataset<Row> connector(String uri, String sql) {
    return spark.read().format("flightsql").option("uri", uri).option("query", sql).load();
  }

  private static void expect(long actual, long expected, String who) {
    if (actual != expected) {
      throw new IllegalStateException(who + " saw " + actual + " rows where " + expected + " are");
    }
  }

  private void add(
      String part, String what, String measured, String against, String ratio, String goal) {
    table.add("| " + String.join(" | ", part, what, measured, against, ratio, goal) + " |");
  }

  private void print(double totalSeconds) {
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "Figures of one run (%.0f s in all). Ratios are speed ratios: above 1x the connector is"
            + " faster; MB = 10^6 bytes of Arrow buffers, MiB = 2^20 bytes.%n%n",
        totalSeconds);
    System.out.println("| part | case | flightsql | against | ratio | goal |");
    System.out.println("| --- | --- | --- | --- | ---: | --- |");
    table.forEach(System.out::println);
  }

  private static String ms(double millis) {
    return String.format(Locale.ROOT, "%.1f ms", millis);
  }

  private static String ratio(double value) {
    return String.format(Locale.ROOT, "%.2fx", value);
  }

  private static String rate(long rows, double seconds) {
    return String.format(Locale.ROOT, "%.2f M rows/s", rows / seconds / 1e6);
  }

  private static String mb(double bytes) {
    return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / MIB);
  }

  static String count(long rows) {
    return rows % 1_000_000 == 0
        ? rows / 1_000_000 + "M"
        : rows % 1_000 == 0 ? rows / 1_000 + "k" : Long.toString(rows);
  }

  /** A peak in record batches of {@code batch} bytes. */
  private static String batches(long peak, long batch) {
    return String.format(Locale.ROOT, "%.1f batches", (double) peak / batch);
  }

  // ---- Interactive latency on every server of the matrix (ServerLatencyBenchmark)

  private void latencyPerServer() throws Exception {
    for (ServerLatencyBenchmark.Line line :
        ServerLatencyBenchmark.measure(spark, LatencyServers.ALL, args.runs(), true)) {
      String what = line.server() + ": 10-row query, median of " + args.runs() + ", collect()";
      if (line.jdbcFailure() == null) {
        add(
            "latency per server",
            what,
            ms(line.connectorMedian()),
            "jdbc " + ms(line.jdbcMedian()),
            ratio(line.ratio()),
            ServerLatencyBenchmark.GOAL);
      } else {
        add(
            "latency per server",
            what,
            ms(line.connectorMedian()),
            "jdbc cannot read: " + line.jdbcFailure().replace('|', '/'),
            "",
            ServerLatencyBenchmark.GOAL);
      }
      add(
          "latency per server",
          line.server() + ": first read of a fresh JVM after Spark's first job (then the second)",
          ms(line.connectorFresh().firstRead())
              + " ("
              + ms(line.connectorFresh().secondRead())
              + ")",
          "Spark's first job " + ms(line.connectorFresh().sparkFirstJob()),
          "",
          "report");
    }
  }
}
