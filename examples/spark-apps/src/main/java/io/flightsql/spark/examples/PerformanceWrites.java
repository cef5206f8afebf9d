package io.flightsql.spark.examples;

import static io.flightsql.spark.examples.PerformanceTable.batches;
import static io.flightsql.spark.examples.PerformanceTable.count;
import static io.flightsql.spark.examples.PerformanceTable.mb;
import static io.flightsql.spark.examples.PerformanceTable.mib;
import static io.flightsql.spark.examples.PerformanceTable.ms;
import static io.flightsql.spark.examples.PerformanceTable.rate;
import static io.flightsql.spark.examples.PerformanceTable.ratio;

import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.examples.WriteLimit.Kind;
import io.flightsql.spark.examples.WriteLimit.Way;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The parts {@code write} and {@code streaming} of {@link PerformanceBenchmark}: writes against
 * their limit ({@link WriteLimit}), and {@link StreamingBenchmark}'s copies against a batch copy,
 * each adding its rows to the run's one table.
 */
final class PerformanceWrites {

  /** What a DataFrame write reports as an accumulator of its stage (docs/writing.md). */
  private static final String SERVER_WAIT_ACCUMULATOR =
      "time waiting for the Flight SQL server (ms)";

  private final PerformanceArgs args;
  private final SparkSession spark;
  private final BufferAllocator allocator;
  private final PerformanceTable table;

  PerformanceWrites(
      PerformanceArgs args, SparkSession spark, BufferAllocator allocator, PerformanceTable table) {
    this.args = args;
    this.spark = spark;
    this.allocator = allocator;
    this.table = table;
  }

  /**
   * The writes of {@link WriteLimit}: Spark's {@code noop}, the raw client's DoPut and ADBC's
   * ingest of prebuilt batches, the connector ({@code ingest} and {@code prepared}, into the table)
   * and Spark's JDBC writer, in alternated rounds, to a server that counts and drops the rows.
   */
  void writes() throws Exception {
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
        addFixedCost("a write of 1 row (atomic=false)", fixed[1], fixed[0]);
        addFixedCost("a staged write of 1 row (the default)", fixed[2], fixed[0]);
        table.add(
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
      table.add(
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
      table.add(
          "write",
          way.name() + ", " + what,
          measured,
          limitText,
          Double.isNaN(limitRate) ? "n/a" : ratio(way.rate() / limitRate),
          "≥ 0.8x");
      table.add(
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
        table.add(
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

  /**
   * {@link StreamingBenchmark}'s copies of the write benchmark's rows from one table to another:
   * rows per second of a batch copy, and of a streaming copy in one micro-batch and in
   * micro-batches of a tenth of the rows, each against the batch copy; best of {@code
   * --iterations}.
   */
  void streaming() throws Exception {
    long rows = args.streamRows();
    long maxRows = Math.max(1, rows / 10);
    StreamingBenchmark.Figures figures =
        StreamingBenchmark.measure(spark, rows, maxRows, args.iterations());
    String what = "copy of " + count(rows) + " rows, table to table, best of " + args.iterations();
    String batch = rate(rows, figures.batch());
    table.add("streaming", "batch copy: " + what, batch, "", "", "");
    table.add(
        "streaming",
        "streaming copy, one micro-batch (AvailableNow): " + what,
        rate(rows, figures.oneEpoch()),
        "batch copy " + batch,
        ratio(figures.batch() / figures.oneEpoch()),
        "report");
    table.add(
        "streaming",
        figures.streamed() + " rows (" + figures.epochCount() + " epochs): " + what,
        rate(rows, figures.epochs()),
        "batch copy " + batch,
        ratio(figures.batch() / figures.epochs()),
        "report");
  }

  /** A row of the fixed cost of a write, {@code millis}, against {@code noop}'s. */
  private void addFixedCost(String what, double millis, double noopMillis) {
    table.add(
        "write",
        "fixed cost: " + what + ", median of " + args.runs(),
        ms(millis),
        "noop " + ms(noopMillis),
        ratio(noopMillis / millis),
        "");
  }
}
