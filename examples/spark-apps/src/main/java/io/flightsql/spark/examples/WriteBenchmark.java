package io.flightsql.spark.examples;

import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Writes the same lineitem-like rows to a Flight SQL server five ways in one run and prints how
 * fast each was:
 *
 * <ol>
 *   <li><b>raw client</b>: Arrow Java's own Flight SQL client, no Spark ({@link
 *       RawFlightSqlWriter}), sending batches built before the timing through one DoPut of bulk
 *       ingestion. It pays for nothing but the upload, so it is the ceiling of one stream (the
 *       Spark ways upload one stream per task, two at once here).
 *   <li><b>flightsql ingest</b> and <b>flightsql prepared</b>: this project's connector, {@code
 *       df.write.format("flightsql").mode("append")}, with {@code writeMethod} {@code ingest} and
 *       {@code prepared} and {@code atomic=false}: each task writes into the table.
 *   <li><b>flightsql staged</b>: the connector with its default options, {@code ingest} into a
 *       staging table per task, whose rows the job's commit copies into the table in one
 *       transaction (docs/writing.md): what keeping the table whole when a job fails costs.
 *   <li><b>spark jdbc</b>: Spark's JDBC writer over the Arrow Flight SQL JDBC driver, the way to
 *       write to a Flight SQL server from Spark without this project. It writes {@code --jdbc-rows}
 *       rows, by default as many as the others; the ways are compared by rows per second, but a
 *       much smaller count would let the fixed costs of a Spark job and of the driver's first calls
 *       weigh more in the JDBC way's rate than in the others'.
 * </ol>
 *
 * <p>The rows come from {@link #lineitem}, computed from the row number alone and cached in Spark
 * before any timing, so every run of every way writes the same values and the Spark ways do not pay
 * for computing them. Before each run the target table is dropped and created again, empty, from
 * the data's Arrow schema, and after it the benchmark counts the table's rows and stops if any are
 * missing or extra. Each way runs once to warm up, then the ways take turns for {@code
 * --iterations} rounds. The megabytes are the Arrow buffer bytes of the rows (those of the raw
 * client's batches).
 *
 * <p>At the end, one connector write of {@code --peak-rows} rows (10,000,000 by default), computed
 * by Spark as they are written, shows how much memory a write holds: the connector's Arrow
 * allocator and the JVM heap.
 *
 * <pre>mvn -q -pl examples/spark-apps exec:exec@write-benchmark -Dbenchmark.args="--rows 200000"
 * </pre>
 */
public final class WriteBenchmark {

  static final String TABLE = "write_benchmark";

  private static final double MIB = 1024.0 * 1024.0;

  private final WriteBenchmarkArgs args;
  private final String uri;

  private WriteBenchmark(WriteBenchmarkArgs args, String uri) {
    this.args = args;
    this.uri = uri;
  }

  public static void main(String[] commandLine) throws Exception {
    WriteBenchmarkArgs args;
    try {
      args = WriteBenchmarkArgs.parse(commandLine);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    DuckDbFlightSqlServer server = null;
    try {
      if (args.uri() == null) {
        server = DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).start();
        System.out.println("Embedded DuckDB server at " + server.uri());
      }
      new WriteBenchmark(args, args.uri() != null ? args.uri() : server.uri()).run();
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  /**
   * The benchmark's rows, as many as asked, in as many partitions as Spark has cores. Every value
   * follows from the row number {@code id} (in the session time zone UTC); the comment has 21 to 30
   * characters. The timestamp is a TIMESTAMP_NTZ because Spark's JDBC source, once it has written
   * the rows, fails on a table with a column that the Arrow Flight SQL JDBC driver reports as
   * {@code TIMESTAMP_WITH_TIMEZONE} ({@code UNRECOGNIZED_SQL_TYPE}), which DuckDB's {@code
   * TIMESTAMPTZ} is.
   */
  static Dataset<Row> lineitem(SparkSession spark, long rows) {
    int partitions = spark.sparkContext().defaultParallelism();
    return spark
        .range(0, rows, 1, partitions)
        .selectExpr(
            "id AS l_orderkey",
            "CAST(id % 50 + 1 AS INT) AS l_quantity",
            "CAST(id % 11 AS DOUBLE) / 100 AS l_discount",
            "CAST((id % 100000) * 1.37 AS DECIMAL(12, 2)) AS l_extendedprice",
            "concat('comment no ', lpad(CAST(id AS STRING), 10, '0'),"
                + " substr('abcdefghi', 1, CAST(id % 10 AS INT))) AS l_comment",
            "date_add(DATE'1992-01-02', CAST(id % 2526 AS INT)) AS l_shipdate",
            "CAST(timestamp_seconds(694310400 + id * 13) AS TIMESTAMP_NTZ) AS l_receipt");
  }

  private void run() throws Exception {
    SparkSession spark =
        SparkSession.builder()
            .appName("spark-flightsql write benchmark")
            .master("local[2]")
            .config("spark.ui.enabled", false)
            // Rows hand the raw client java.time values, free of the JVM's time zone.
            .config("spark.sql.datetime.java8API.enabled", true)
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate();
    try (BufferAllocator allocator = new RootAllocator();
        RawFlightSqlWriter raw = new RawFlightSqlWriter(uri, allocator)) {
      ReadBenchmark.printEnvironment(spark);
      Dataset<Row> data = cached(lineitem(spark, args.rows()));
      Dataset<Row> jdbcData = data;
      if (args.jdbcRows() == 0) {
        jdbcData = null;
      } else if (args.jdbcRows() != args.rows()) {
        jdbcData = cached(lineitem(spark, args.jdbcRows()));
      }

      Schema schema;
      long bytes;
      Way rawWay;
      Way ingest;
      Way prepared;
      Way staged;
      Way jdbc;
      try (PrebuiltBatches batches = PrebuiltBatches.build(data, allocator)) {
        schema = batches.schema();
        bytes = batches.bytes();
        System.out.printf(
            Locale.ROOT,
            "Data: %,d rows, %,d bytes of Arrow buffers in %d batches (at most %,d rows or %d MiB"
                + " each); %s%n",
            batches.rows(),
            bytes,
            batches.batchCount(),
            PrebuiltBatches.BATCH_ROWS,
            PrebuiltBatches.BATCH_BYTES >> 20,
            data.schema().simpleString());
        if (batches.rows() != args.rows()) {
          throw new IllegalStateException(
              "Built " + batches.rows() + " rows where Spark has " + args.rows());
        }
        rawWay = new Way("raw client", args.rows(), () -> raw.ingest(TABLE, batches));
        ingest =
            new Way("flightsql ingest", args.rows(), () -> connectorWrite(data, "ingest", "false"));
        prepared =
            new Way(
                "flightsql prepared", args.rows(), () -> connectorWrite(data, "prepared", "false"));
        staged =
            new Way("flightsql staged", args.rows(), () -> connectorWrite(data, "ingest", "auto"));
        Dataset<Row> jdbcInput = jdbcData;
        jdbc =
            new Way(new Timings("spark jdbc"), args.jdbcRows(), true, () -> jdbcWrite(jdbcInput));
        if (jdbcData == null) {
          jdbc.timings().skip("--jdbc-rows 0");
        }
        measure(List.of(rawWay, ingest, prepared, staged, jdbc), raw, schema);
      }
      raw.drop(TABLE);

      System.out.println();
      System.out.println(
          "Times are best and median of "
              + args.iterations()
              + " runs; rates are those of the median run; MB = 10^6 bytes of Arrow buffers.");
      System.out.println(header());
      System.out.println(line(rawWay, bytes));
      System.out.println(line(ingest, bytes));
      System.out.println(line(prepared, bytes));
      System.out.println(line(staged, bytes));
      System.out.println(line(jdbc, jdbcBytes(jdbcData, bytes, allocator)));
      System.out.println(ratios(ingest, rawWay, jdbc));
      System.out.println(ratios(prepared, rawWay, jdbc));
      System.out.println(ratios(staged, rawWay, jdbc));
      System.out.println(ratio(staged, ingest, "ingest", "%.2fx"));

      data.unpersist(true);
      if (jdbcData != null && jdbcData != data) {
        jdbcData.unpersist(true);
      }
      if (args.peakRows() > 0) {
        System.out.println();
        measurePeak(spark, raw, schema);
      }
    } finally {
      spark.stop();
    }
  }

  /** The Arrow bytes of the JDBC way's rows: those of the others when it writes as many rows. */
  private long jdbcBytes(Dataset<Row> jdbcData, long bytes, BufferAllocator allocator) {
    if (jdbcData == null || args.jdbcRows() == args.rows()) {
      return bytes;
    }
    try (PrebuiltBatches counted = PrebuiltBatches.build(jdbcData, allocator)) {
      return counted.bytes();
    }
  }

  private static Dataset<Row> cached(Dataset<Row> data) {
    Dataset<Row> cached = data.cache();
    cached.count();
    return cached;
  }

  private void connectorWrite(Dataset<Row> data, String method, String atomic) {
    connectorWrite(data, uri, method, atomic);
  }

  /**
   * Appends the rows to {@link #TABLE} of the server at {@code uri} through the connector, with
   * options {@code writeMethod} and {@code atomic}.
   */
  static void connectorWrite(Dataset<Row> data, String uri, String method, String atomic) {
    data.write()
        .format("flightsql")
        .option("uri", uri)
        .option("dbtable", TABLE)
        .option("writeMethod", method)
        .option("atomic", atomic)
        .mode("append")
        .save();
  }

  /**
   * Spark's JDBC writer with its defaults (1,000 rows per {@code executeBatch}, one connection per
   * task), appending to the table that the benchmark created.
   */
  private void jdbcWrite(Dataset<Row> data) {
    jdbcWrite(data, uri);
  }

  static void jdbcWrite(Dataset<Row> data, String uri) {
    data.write()
        .format("jdbc")
        .option("url", ReadBenchmark.jdbcUrl(uri))
        .option("driver", ReadBenchmark.JDBC_DRIVER)
        .option("dbtable", TABLE)
        .mode("append")
        .save();
  }

  /**
   * One way of writing.
   *
   * @param timings its timed runs; marked skipped when the way is not measured
   * @param rows the rows each run writes
   * @param mayFail whether a failure leaves the way out of the figures instead of failing the
   *     benchmark: only for Spark's JDBC writer, a baseline that this project does not control
   */
  private record Way(Timings timings, long rows, boolean mayFail, Timings.Run run) {
    Way(String name, long rows, Timings.Run run) {
      this(new Timings(name), rows, false, run);
    }

    String name() {
      return timings.way();
    }
  }

  /**
   * Runs every way once to warm up, then {@code --iterations} rounds in which each way runs once,
   * printing each run. Taking turns, rather than running one way after the other, spreads over all
   * ways alike whatever changes during the benchmark: the load of a shared machine, and the server
   * warming up. Each run writes into the table freshly created from {@code schema}, after a garbage
   * collection that keeps the previous run's garbage out of its time, and is checked to have left
   * exactly its rows.
   */
  private void measure(List<Way> ways, RawFlightSqlWriter raw, Schema schema) throws Exception {
    for (int round = 0; round <= args.iterations(); round++) {
      for (Way way : ways) {
        if (way.timings().skipped()) {
          continue;
        }
        raw.recreate(TABLE, schema);
        System.gc();
        long start = System.nanoTime();
        try {
          way.run().run();
        } catch (Exception e) {
          if (!way.mayFail()) {
            throw e;
          }
          System.err.println(way.name() + " failed; it is left out of the figures:");
          e.printStackTrace();
          way.timings().skip("the write failed: " + e);
          continue;
        }
        double took = ReadBenchmark.seconds(start);
        expectRows(raw.count(TABLE), way.rows());
        if (round == 0) {
          System.out.printf(Locale.ROOT, "%-18s warm-up  %6.2f s%n", way.name(), took);
        } else {
          way.timings().add(took);
          System.out.printf(Locale.ROOT, "%-18s run %-4d %6.2f s%n", way.name(), round, took);
        }
      }
    }
  }

  /**
   * One connector write of {@code --peak-rows} rows that Spark computes as they are written, with
   * the memory it took: the connector's Arrow allocator (its JVM-lifetime peak before and after,
   * and what this write allocated at once, sampled) and the JVM heap.
   */
  private void measurePeak(SparkSession spark, RawFlightSqlWriter raw, Schema schema)
      throws Exception {
    long rows = args.peakRows();
    raw.recreate(TABLE, schema);
    Dataset<Row> data = lineitem(spark, rows);
    System.gc();
    long peakBefore = Allocators.peakBytes();
    MemoryWatch watch = MemoryWatch.start(Allocators::allocatedBytes);
    long start = System.nanoTime();
    connectorWrite(data, "ingest", "false");
    double took = ReadBenchmark.seconds(start);
    MemoryWatch.Peaks peaks = watch.stop();
    long peakAfter = Allocators.peakBytes();
    expectRows(raw.count(TABLE), rows);
    raw.drop(TABLE);

    System.out.printf(
        Locale.ROOT,
        "Memory of one flightsql ingest write of %,d rows, computed by Spark as they are written"
            + " (not cached):%n",
        rows);
    System.out.printf(Locale.ROOT, "  took %.2f s, %.3f M rows/s%n", took, rows / took / 1e6);
    System.out.printf(
        Locale.ROOT,
        "  connector Arrow allocator, peak since the JVM started: %.1f MiB before this write,"
            + " %.1f MiB after%n",
        peakBefore / MIB,
        peakAfter / MIB);
    System.out.printf(
        Locale.ROOT,
        "  connector Arrow allocator during this write (sampled every 10 ms): at most %.1f MiB%n",
        peaks.arrowBytes() / MIB);
    System.out.printf(
        Locale.ROOT,
        "  JVM heap during this write: at most %.0f MiB in use (sampled, garbage included), at"
            + " most %s right after a GC (%d collections); max heap %.0f MiB%n",
        peaks.heapUsed() / MIB,
        peaks.heapAfterGc() < 0
            ? "n/a"
            : String.format(Locale.ROOT, "%.0f MiB", peaks.heapAfterGc() / MIB),
        peaks.collections(),
        Runtime.getRuntime().maxMemory() / MIB);
  }

  private static String header() {
    return String.format(
        Locale.ROOT,
        "%-18s %12s %9s %9s %11s %8s",
        "way",
        "rows",
        "best",
        "median",
        "rows/s",
        "MB/s");
  }

  private static String line(Way way, long bytes) {
    Timings timings = way.timings();
    if (!timings.measured()) {
      return timings.summary(way.rows(), bytes);
    }
    double median = timings.median();
    return String.format(
        Locale.ROOT,
        "%-18s %,12d %7.2f s %7.2f s %9.3f M %8.1f",
        way.name(),
        way.rows(),
        timings.best(),
        median,
        way.rows() / median / 1e6,
        bytes / median / 1e6);
  }

  /** How many times the connector's rows per second (at the median) are those of each baseline. */
  private static String ratios(Way connector, Way raw, Way jdbc) {
    return ratio(connector, raw, "raw", "%.2fx") + " ; " + ratio(connector, jdbc, "jdbc", "%.1fx");
  }

  private static String ratio(Way connector, Way baseline, String label, String format) {
    String text = connector.name() + " / " + label + " = ";
    if (!connector.timings().measured() || !baseline.timings().measured()) {
      return text + "n/a";
    }
    return text + String.format(Locale.ROOT, format, rate(connector) / rate(baseline));
  }

  private static double rate(Way way) {
    return way.rows() / way.timings().median();
  }

  private static void expectRows(long actual, long expected) {
    if (actual != expected) {
      throw new IllegalStateException(
          "The table has " + actual + " rows after a write of " + expected);
    }
  }
}
