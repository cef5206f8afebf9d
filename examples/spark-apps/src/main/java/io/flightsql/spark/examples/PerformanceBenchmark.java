package io.flightsql.spark.examples;

import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.examples.WriteLimit.Kind;
import io.flightsql.spark.examples.WriteLimit.Way;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
      if (args.parts().contains("streaming")) {
        benchmark.streaming();
      }
      benchmark.print(ReadBenchmark.seconds(start));
    } finally {
      spark.stop();
    }
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

  // ---- Writes against their limit

  /** What a DataFrame write reports as an accumulator of its stage (docs/writing.md). */
  private static final String SERVER_WAIT_ACCUMULATOR =
      "time waiting for the Flight SQL server (ms)";

  /**
   * The writes of {@link WriteLimit}: Spark's {@code noop}, the raw client's DoPut and ADBC's
   * ingest of prebuilt batches, the connector ({@code ingest} and {@code prepared}, into the table)
   * and Spark's JDBC writer, in alternated rounds, to a server that counts and drops the rows.
   */
  private void writes() throws Exception {
    long rows = args.writeRows();
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).without("RowStorage").start();
        RawFlightSqlWriter raw = new RawFlightSqlWriter(server.uri(), allocator)) {
      String uri = server.uri();
      Dataset<Row> data = WriteBenchmark.lineitem(spark, rows).cache();
      data.count();
      try (PrebuiltBatches batches = PrebuiltBatches.build(data, allocator);
          AdbcWay adbc = AdbcWay.start(uri, batches)) {
        Schema schema = batches.schema();
        // The connector's tasks write into the table (atomic=false): the limit is the upload's.
        // The default's staging costs a server-side copy, which this server (without row storage)
        // would not pay; WriteBenchmark measures it, and the fixed cost below includes it.
        List<Way> ways =
            List.of(
                Way.timed("noop", Kind.NOOP, rows, () -> ReadBenchmark.writeToNoop(data)),
                Way.timed(
                    "raw client DoPut",
                    Kind.TRANSPORT,
                    rows,
                    () -> raw.ingest(WriteBenchmark.TABLE, batches)),
                adbc.way(WriteBenchmark.TABLE, rows),
                Way.timed(
                    "flightsql ingest",
                    Kind.CONNECTOR,
                    rows,
                    () -> WriteBenchmark.connectorWrite(data, uri, "ingest", "false")),
                Way.timed(
                    "flightsql prepared",
                    Kind.CONNECTOR,
                    rows,
                    () -> WriteBenchmark.connectorWrite(data, uri, "prepared", "false")),
                Way.timed(
                    "spark jdbc", Kind.JDBC, rows, () -> WriteBenchmark.jdbcWrite(data, uri)));
        Map<String, Timings> waiting = new HashMap<>();
        Allocators.resetLargestPeaks();
        WriteLimit limit = new WriteLimit(ways);
        limit.measure(
            args.iterations(),
            new WriteLimit.Target() {
              @Override
              public void recreate() {
                raw.recreate(WriteBenchmark.TABLE, schema);
              }

              @Override
              public long mark() {
                return server.discardedRows();
              }

              @Override
              public long landed(Way way, long mark) {
                return server.discardedRows() - mark;
              }
            },
            (way, took) -> {
              if (way.kind() == Kind.CONNECTOR) {
                long waitMillis = SqlMetrics.latestStageAccumulator(spark, SERVER_WAIT_ACCUMULATOR);
                int tasks = spark.sparkContext().defaultParallelism();
                waiting
                    .computeIfAbsent(way.name(), name -> new Timings(name))
                    .add(waitMillis / (tasks * took * 1000));
              }
            });
        raw.drop(WriteBenchmark.TABLE);
        long taskPeak = Allocators.largestPeakBytes("flightsql-write");
        long batch = batches.bytes() / batches.batchCount();
        System.out.println();
        System.out.print(limit.table(batches.bytes()));
        addWriteFigures(limit, batches.bytes(), waiting);
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
   * The rows of the summary for the writes: each baseline's rate, the limit, and each connector way
   * against the limit (goal 0.8x) and against Spark's JDBC writer (goal 20x), with the share of its
   * tasks' time spent sending and waiting for the server.
   */
  private void addWriteFigures(WriteLimit limit, long bytes, Map<String, Timings> waiting) {
    String what =
        String.format(
            Locale.ROOT,
            "write of %s cached rows (%s MB), median of %d",
            count(args.writeRows()),
            mb(bytes),
            args.iterations());
    for (Way way : limit.ways()) {
      if (way.kind() == Kind.CONNECTOR) {
        continue;
      }
      add(
          "write",
          way.name() + ", " + what,
          way.measured() ? rate(way.rows(), way.timings().median()) : "not measured",
          "",
          "",
          "");
    }
    double limitRate = limit.limit();
    Way transport = limit.transport();
    String limitText =
        Double.isNaN(limitRate)
            ? "limit n/a"
            : String.format(
                Locale.ROOT, "limit %.2f M rows/s (noop ⊕ %s)", limitRate / 1e6, transport.name());
    Way jdbc = limit.fastest(Kind.JDBC);
    for (Way way : limit.connectors()) {
      String measured = rate(way.rows(), way.timings().median());
      add(
          "write",
          way.name() + ", " + what,
          measured,
          limitText,
          Double.isNaN(limitRate) ? "n/a" : ratio(way.rate() / limitRate),
          "≥ 0.8x");
      add(
          "write",
          way.name() + ", " + what,
          measured,
          jdbc == null
              ? "spark jdbc n/a"
              : "spark jdbc " + rate(jdbc.rows(), jdbc.timings().median()),
          jdbc == null ? "n/a" : ratio(way.rate() / jdbc.rate()),
          "≥ 20x");
      Timings share = waiting.get(way.name());
      if (share != null) {
        add(
            "write",
            way.name() + ": share of its tasks' time spent sending and waiting for the server",
            String.format(Locale.ROOT, "%.0f%%", 100 * share.median()),
            "",
            "",
            "");
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

  // ---- Streaming against batch copies

  /**
   * {@link StreamingBenchmark}'s copies of the write benchmark's rows from one table to another:
   * rows per second of a batch copy, and of a streaming copy in one micro-batch and in
   * micro-batches of a tenth of the rows, each against the batch copy; best of {@code
   * --iterations}.
   */
  private void streaming() throws Exception {
    long rows = args.streamRows();
    long maxRows = Math.max(1, rows / 10);
    StreamingBenchmark.Figures figures =
        StreamingBenchmark.measure(spark, rows, maxRows, args.iterations());
    String what = "copy of " + count(rows) + " rows, table to table, best of " + args.iterations();
    String batch = rate(rows, figures.batch());
    add("streaming", "batch copy: " + what, batch, "", "", "");
    add(
        "streaming",
        "streaming copy, one micro-batch (AvailableNow): " + what,
        rate(rows, figures.oneEpoch()),
        "batch copy " + batch,
        ratio(figures.batch() / figures.oneEpoch()),
        "report");
    add(
        "streaming",
        figures.streamed() + " rows (" + figures.epochCount() + " epochs): " + what,
        rate(rows, figures.epochs()),
        "batch copy " + batch,
        ratio(figures.batch() / figures.epochs()),
        "report");
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
}
