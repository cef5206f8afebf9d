package io.flightsql.spark.examples;

import static io.flightsql.spark.examples.PerformanceTable.batches;
import static io.flightsql.spark.examples.PerformanceTable.count;
import static io.flightsql.spark.examples.PerformanceTable.mb;
import static io.flightsql.spark.examples.PerformanceTable.mib;
import static io.flightsql.spark.examples.PerformanceTable.ms;
import static io.flightsql.spark.examples.PerformanceTable.rate;
import static io.flightsql.spark.examples.PerformanceTable.ratio;

import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.io.IOException;
import java.util.Locale;
import java.util.StringJoiner;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Every performance figure of the connector in one run, printed as one markdown table that
 * docs/performance.md quotes: interactive latency, a full scan against the raw Arrow client and
 * Spark's JDBC source, the cost of the batch checks ({@link BatchChecksCost}), writes against their
 * limit and streaming copies ({@link PerformanceWrites}), how time and memory grow with rows,
 * endpoints and columns, star joins, and interactive latency on every server of the matrix. Every
 * ratio compares two ways measured in this run; nothing here is a timed assertion.
 *
 * <p>Servers are embedded DuckDB Flight SQL servers in this JVM, started for each part: writes go
 * to one started without {@code RowStorage} (rows counted and dropped, so the figures are the
 * client's, not DuckDB's inserts), and the scaling reads to ones started without {@code
 * QueryPerEndpoint} (a query runs once and its endpoints are cheap slices of the result). Part
 * {@code servers} starts each server of the matrix as the integration tests do.
 *
 * <pre>mvn -q -pl examples/spark-apps exec:exec@performance [-Dbenchmark.args="--quick"]</pre>
 */
public final class PerformanceBenchmark {

  private static final String SCAN = "SELECT * FROM lineitem";

  private final PerformanceArgs args;
  private final SparkSession spark;
  private final BufferAllocator allocator;
  private final PerformanceTable table;

  private PerformanceBenchmark(
      PerformanceArgs args, SparkSession spark, BufferAllocator allocator, PerformanceTable table) {
    this.args = args;
    this.spark = spark;
    this.allocator = allocator;
    this.table = table;
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
            // As spark_flightsql.configure() sets it: star joins get runtime filters by default.
            .config("spark.sql.extensions", "io.flightsql.spark.FlightSqlExtensions")
            .getOrCreate();
    long start = System.nanoTime();
    try (BufferAllocator allocator = new RootAllocator()) {
      PerformanceTable table = new PerformanceTable();
      PerformanceBenchmark benchmark = new PerformanceBenchmark(args, spark, allocator, table);
      PerformanceWrites writes = new PerformanceWrites(args, spark, allocator, table);
      ReadBenchmark.printEnvironment(spark);
      if (args.parts().contains("latency")) {
        benchmark.latency();
      }
      if (args.parts().contains("scan")) {
        benchmark.fullScan();
      }
      if (args.parts().contains("checks")) {
        BatchChecksCost.measure(spark, args.scanRows(), Math.max(5, args.iterations()), table);
      }
      if (args.parts().contains("write")) {
        writes.writes();
      }
      if (args.parts().contains("scale")) {
        benchmark.scaling();
      }
      if (args.parts().contains("starjoin")) {
        benchmark.starJoins();
      }
      if (args.parts().contains("streaming")) {
        writes.streaming();
      }
      if (args.parts().contains("servers")) {
        benchmark.latencyPerServer();
      }
      table.print(ReadBenchmark.seconds(start));
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
      table.add(
          "latency",
          "10-row query, " + median,
          ms(figures.connectorMedian()),
          "jdbc " + ms(figures.jdbcMedian()),
          ratio(figures.jdbcMedian() / figures.connectorMedian()),
          "≥ 1.5x");
      table.add(
          "latency",
          "Spark's own floor: a 10-row local job, " + median,
          ms(figures.sparkMedian()),
          "",
          "",
          "");
      table.add(
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
      table.add(
          "full scan",
          what,
          rate(rows, flightsql.best()),
          "raw client " + rate(rows, rawTimings.best()),
          ratio(rawTimings.best() / flightsql.best()),
          "≥ 0.7x");
      table.add(
          "full scan",
          what,
          rate(rows, flightsql.best()),
          "spark jdbc " + rate(rows, jdbc.best()),
          ratio(jdbc.best() / flightsql.best()),
          "keep ahead");
    }
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
        table.add(
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
        table.add(
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
        table.add(
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
      table.add(
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

  // ---- Interactive latency on every server of the matrix (ServerLatencyBenchmark)

  private void latencyPerServer() throws Exception {
    for (ServerLatencyBenchmark.Line line :
        ServerLatencyBenchmark.measure(spark, LatencyServers.ALL, args.runs(), true)) {
      String what = line.server() + ": 10-row query, median of " + args.runs() + ", collect()";
      if (line.jdbcFailure() == null) {
        table.add(
            "latency per server",
            what,
            ms(line.connectorMedian()),
            "jdbc " + ms(line.jdbcMedian()),
            ratio(line.ratio()),
            ServerLatencyBenchmark.GOAL);
      } else {
        table.add(
            "latency per server",
            what,
            ms(line.connectorMedian()),
            "jdbc cannot read: " + line.jdbcFailure().replace('|', '/'),
            "",
            ServerLatencyBenchmark.GOAL);
      }
      addFirstRead(
          line.server() + ": first read of a fresh JVM after Spark's first job (then the second)",
          line.connectorFresh());
      addFirstRead(
          line.server()
              + ": the same with spark.plugins=io.flightsql.spark.FlightSqlPlugin (classes loaded"
              + " while Spark starts)",
          line.pluginFresh());
    }
  }

  private void addFirstRead(String what, ServerLatencyBenchmark.FreshJvm fresh) {
    table.add(
        "latency per server",
        what,
        ms(fresh.firstRead()) + " (" + ms(fresh.secondRead()) + ")",
        "Spark's first job " + ms(fresh.sparkFirstJob()),
        "",
        "report");
  }
}
