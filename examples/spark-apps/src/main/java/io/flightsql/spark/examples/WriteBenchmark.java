package io.flightsql.spark.examples;

import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.examples.WriteLimit.Kind;
import io.flightsql.spark.examples.WriteLimit.Way;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Writes the same lineitem-like rows to a Flight SQL server seven ways in one run, prints how fast
 * each was, and holds the connector against the limit of a row-producing Spark write ({@link
 * WriteLimit}) and against Spark's JDBC writer:
 *
 * <ol>
 *   <li><b>noop</b>: Spark's {@code noop} sink, Spark's own cost of producing the cached rows.
 *   <li><b>raw client DoPut</b>: Arrow Java's own Flight SQL client, no Spark ({@link
 *       RawFlightSqlWriter}), sending batches built before the timing through one DoPut of bulk
 *       ingestion: the transport alone.
 *   <li><b>adbc_ingest (Python)</b>: ADBC's Flight SQL driver from Python ({@link AdbcIngest}),
 *       {@code cursor.adbc_ingest} of the same rows built before the timing as pyarrow batches:
 *       what a Python user holding Arrow data does, and a second measure of the transport.
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
 * the data's Arrow schema, and after it the benchmark counts the table's rows and takes a
 * fingerprint of its values: it stops if any row is missing or extra, and prints with the figures
 * any way whose values differ from the first way's. Each way runs once to warm up, then the ways
 * take turns for {@code --iterations} rounds; rates are those of the median run. The megabytes are
 * the Arrow buffer bytes of the rows (those of the raw client's batches).
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
      try (PrebuiltBatches batches = PrebuiltBatches.build(data, allocator);
          AdbcWay adbc = AdbcWay.start(uri, batches)) {
        schema = batches.schema();
        long bytes = batches.bytes();
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
        long rows = args.rows();
        List<Way> ways = new ArrayList<>();
        ways.add(Way.timed("noop", Kind.NOOP, rows, () -> ReadBenchmark.writeToNoop(data)));
        ways.add(
            Way.timed("raw client DoPut", Kind.TRANSPORT, rows, () -> raw.ingest(TABLE, batches)));
        ways.add(adbc.way(TABLE, rows));
        ways.add(
            Way.timed(
                "flightsql ingest",
                Kind.CONNECTOR,
                rows,
                () -> connectorWrite(data, "ingest", "false")));
        ways.add(
            Way.timed(
                "flightsql prepared",
                Kind.CONNECTOR,
                rows,
                () -> connectorWrite(data, "prepared", "false")));
        ways.add(
            Way.timed(
                "flightsql staged",
                Kind.OTHER,
                rows,
                () -> connectorWrite(data, "ingest", "auto")));
        Dataset<Row> jdbcInput = jdbcData;
        Way jdbc = Way.timed("spark jdbc", Kind.JDBC, args.jdbcRows(), () -> jdbcWrite(jdbcInput));
        if (jdbcData == null) {
          jdbc.timings().skip("--jdbc-rows 0");
        }
        ways.add(jdbc);
        WriteLimit limit = new WriteLimit(ways);
        SameRows target = new SameRows(raw, schema);
        limit.measure(args.iterations(), target, (way, took) -> {});
        raw.drop(TABLE);

        System.out.println();
        System.out.println(
            "Times are best and median of "
                + args.iterations()
                + " runs; rates are those of the median run; MB = 10^6 bytes of Arrow buffers"
                + " (the raw client's batches; ADBC's pyarrow batches have "
                + adbc.bytes()
                + ").");
        System.out.print(limit.table(bytes));
        target.differences.forEach(problem -> System.out.println("VALUES DIFFER: " + problem));
        Way staged = ways.get(5);
        Way ingest = ways.get(3);
        if (staged.measured() && ingest.measured()) {
          System.out.printf(
              Locale.ROOT,
              "flightsql staged / flightsql ingest = %.2fx%n",
              staged.rate() / ingest.rate());
        }
      }

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

  /**
   * The table every way writes into, made again before each run, and checked after it: it must hold
   * exactly the run's rows, and the same values whichever way wrote them (a fingerprint of every
   * column, compared with that of the first way that wrote as many rows).
   */
  private static final class SameRows implements WriteLimit.Target {
    /** A hash of each column's values, one row per column: {@code name=sum of hashes}. */
    private static final String FINGERPRINT =
        Stream.of(
                "l_orderkey",
                "l_quantity",
                "l_discount",
                "l_extendedprice",
                "l_comment",
                "l_shipdate",
                "l_receipt")
            .map(
                column ->
                    "SELECT '"
                        + column
                        + "=' || CAST(sum(hash("
                        + column
                        + ")) AS VARCHAR) FROM "
                        + TABLE)
            .collect(Collectors.joining(" UNION ALL "));

    private final RawFlightSqlWriter raw;
    private final Schema schema;
    private final Map<Long, String> fingerprints = new HashMap<>();
    private final List<String> differences = new ArrayList<>();

    SameRows(RawFlightSqlWriter raw, Schema schema) {
      this.raw = raw;
      this.schema = schema;
    }

    @Override
    public void recreate() {
      raw.recreate(TABLE, schema);
    }

    @Override
    public long mark() {
      return 0;
    }

    @Override
    public long landed(Way way, long mark) throws Exception {
      long rows = raw.count(TABLE);
      String values =
          raw.column(FINGERPRINT).stream().map(String::valueOf).sorted().toList().toString();
      String first = fingerprints.putIfAbsent(rows, values);
      if (first != null && !first.equals(values)) {
        // Kept and printed with the figures rather than thrown: the other ways' figures stand.
        String problem =
            way.name()
                + " wrote other values than the first way: "
                + values
                + " where it had "
                + first;
        System.out.println("VALUES DIFFER: " + problem);
        differences.add(problem);
      }
      return rows;
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

  private static void expectRows(long actual, long expected) {
    if (actual != expected) {
      throw new IllegalStateException(
          "The table has " + actual + " rows after a write of " + expected);
    }
  }
}
