package io.flightsql.spark.examples;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Reads the same result, {@code SELECT * FROM lineitem}, three ways in one run and prints how fast
 * each was:
 *
 * <ol>
 *   <li><b>raw client</b>: Arrow Java's own Flight SQL client, no Spark ({@link
 *       RawFlightSqlReader}). Nothing that reads Flight SQL can be faster, so it is the ceiling.
 *   <li><b>flightsql</b>: this project's connector, {@code format("flightsql")}.
 *   <li><b>spark jdbc</b>: Spark's JDBC source over the Arrow Flight SQL JDBC driver, the way to
 *       read a Flight SQL server from Spark without this project.
 * </ol>
 *
 * <p>Then the cases of {@link ReadCases}: a 1% filter and a Q1-like aggregate, each with and
 * without pushdown, and a read split into two partitions on a server with one endpoint per query.
 *
 * <p>Both Spark ways write the rows to the {@code noop} sink, which makes Spark produce every row
 * (and so, for the columnar connector, convert every column to rows) and then drops them. Each way
 * runs once to warm up, then {@code --iterations} times. The megabytes of every way are the bytes
 * that the raw client received (the Arrow buffers of all record batches, which make the body of
 * their IPC messages), so that the MB/s figures compare directly.
 *
 * <pre>mvn -q -pl examples/spark-apps exec:exec@benchmark -Dbenchmark.args="--rows 200000"</pre>
 */
public final class ReadBenchmark {

  static final String QUERY = "SELECT * FROM lineitem";
  static final String JDBC_DRIVER = "org.apache.arrow.driver.jdbc.ArrowFlightJdbcDriver";

  /** Rows per JDBC fetch; the Arrow driver streams whole record batches in any case. */
  private static final int JDBC_FETCH_SIZE = 10_000;

  private final BenchmarkArgs args;
  private final String uri;

  /**
   * The embedded server with one endpoint per query of the partitioned case, if one was started.
   */
  private DuckDbFlightSqlServer singleEndpointServer;

  private ReadBenchmark(BenchmarkArgs args, String uri) {
    this.args = args;
    this.uri = uri;
  }

  public static void main(String[] commandLine) throws Exception {
    BenchmarkArgs args;
    try {
      args = BenchmarkArgs.parse(commandLine);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    DuckDbFlightSqlServer server = null;
    try {
      if (args.uri() == null) {
        long start = System.nanoTime();
        server =
            DuckDbFlightSqlServer.builder()
                .port(0)
                .endpoints(args.endpoints())
                .lineitemRows(args.rows())
                .start();
        System.out.printf(
            Locale.ROOT,
            "Embedded DuckDB server at %s: lineitem with %,d rows, %d endpoints (%.1f s to load)%n",
            server.uri(),
            args.rows(),
            args.endpoints(),
            seconds(start));
      }
      new ReadBenchmark(args, args.uri() != null ? args.uri() : server.uri()).run();
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  private void run() throws Exception {
    SparkSession spark =
        SparkSession.builder()
            .appName("spark-flightsql read benchmark")
            .master("local[2]")
            .config("spark.ui.enabled", false)
            .getOrCreate();
    try (BufferAllocator allocator = new RootAllocator();
        RawFlightSqlReader raw = new RawFlightSqlReader(uri, allocator)) {
      printEnvironment(spark);

      RawFlightSqlReader.Result reference = raw.read(QUERY);
      long rows = reference.rows();
      System.out.printf(
          Locale.ROOT,
          "Result: %,d rows, %,d bytes of Arrow buffers, %d endpoints%n",
          rows,
          reference.bytes(),
          reference.endpoints());

      JdbcBounds bounds = jdbcBounds();
      checkRowCounts(spark, rows, bounds, reference.endpoints());

      Timings rawTimings = measure("raw client", () -> expectRows(raw.read(QUERY).rows(), rows));
      Timings connector = measure("flightsql", () -> writeToNoop(connectorRead(spark)));
      Timings jdbc = new Timings("spark jdbc");
      if (bounds.failure() != null) {
        jdbc.skip(bounds.failure());
      } else {
        jdbc =
            measure(
                "spark jdbc", () -> writeToNoop(jdbcRead(spark, bounds, reference.endpoints())));
      }

      System.out.println();
      System.out.println("Rates and ratios are those of the best run; MB = 10^6 bytes.");
      System.out.printf(
          Locale.ROOT,
          "rows=%d bytes=%d endpoints=%d iterations=%d%n",
          rows,
          reference.bytes(),
          reference.endpoints(),
          args.iterations());
      for (Timings way : new Timings[] {rawTimings, connector, jdbc}) {
        System.out.println(way.summary(rows, reference.bytes()));
      }
      System.out.println(ratios(rawTimings, connector, jdbc));

      new ReadCases(spark, uri, rows, args.iterations()).run(this::singleEndpointUri);
    } finally {
      spark.stop();
      if (singleEndpointServer != null) {
        singleEndpointServer.close();
      }
    }
  }

  /**
   * A server with one endpoint per query, as third-party servers are, for the partitioned case: the
   * embedded server itself when it has one endpoint, or the server of {@code --uri} whatever it
   * has; else a second embedded server with the same {@code lineitem}.
   */
  private String singleEndpointUri() {
    if (args.uri() != null || args.endpoints() == 1) {
      return uri;
    }
    if (singleEndpointServer == null) {
      long start = System.nanoTime();
      try {
        singleEndpointServer =
            DuckDbFlightSqlServer.builder().port(0).endpoints(1).lineitemRows(args.rows()).start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      System.out.printf(
          Locale.ROOT,
          "Embedded DuckDB server with 1 endpoint at %s (%.1f s to load)%n",
          singleEndpointServer.uri(),
          seconds(start));
    }
    return singleEndpointServer.uri();
  }

  private Dataset<Row> connectorRead(SparkSession spark) {
    return spark.read().format("flightsql").option("uri", uri).option("query", QUERY).load();
  }

  private Dataset<Row> jdbcRead(SparkSession spark, JdbcBounds bounds, int partitions) {
    return jdbcRead(spark, uri, bounds, partitions);
  }

  /**
   * Spark's JDBC source over {@code lineitem} of the server at {@code uri}, split on {@code
   * l_orderkey} into as many ranges as the Flight SQL query has endpoints, so that both Spark ways
   * read with the same parallelism.
   */
  static Dataset<Row> jdbcRead(SparkSession spark, String uri, JdbcBounds bounds, int partitions) {
    return spark
        .read()
        .format("jdbc")
        .option("url", jdbcUrl(uri))
        .option("driver", JDBC_DRIVER)
        .option("dbtable", "lineitem")
        .option("partitionColumn", "l_orderkey")
        .option("lowerBound", bounds.min())
        .option("upperBound", bounds.max())
        .option("numPartitions", partitions)
        .option("fetchsize", JDBC_FETCH_SIZE)
        .load();
  }

  static void writeToNoop(Dataset<Row> rows) {
    rows.write().format("noop").mode("overwrite").save();
  }

  /** The Arrow Flight SQL JDBC driver's URL for the Flight SQL server at {@code uri}. */
  static String jdbcUrl(String uri) {
    URI flight = URI.create(uri);
    boolean tls = flight.getScheme().equals("grpc+tls");
    return "jdbc:arrow-flight-sql://"
        + flight.getHost()
        + ":"
        + flight.getPort()
        + "/?useEncryption="
        + tls;
  }

  /**
   * The range of {@code l_orderkey} that Spark splits the JDBC read on, read through the driver
   * itself, which also shows whether the driver works against the server at all.
   *
   * @param failure why the driver could not read from the server, or null
   */
  record JdbcBounds(long min, long max, long rows, String failure) {}

  private JdbcBounds jdbcBounds() {
    return jdbcBounds(uri);
  }

  static JdbcBounds jdbcBounds(String uri) {
    String sql = "SELECT min(l_orderkey), max(l_orderkey), count(*) FROM lineitem";
    try (Connection connection = DriverManager.getConnection(jdbcUrl(uri));
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return new JdbcBounds(result.getLong(1), result.getLong(2), result.getLong(3), null);
    } catch (SQLException e) {
      System.err.println("The Arrow Flight SQL JDBC driver failed on " + jdbcUrl(uri) + ":");
      e.printStackTrace();
      return new JdbcBounds(0, 0, 0, "the JDBC driver failed: " + e);
    }
  }

  /** Both Spark ways must see every row that the raw client does, or the figures mean nothing. */
  private void checkRowCounts(SparkSession spark, long rows, JdbcBounds bounds, int partitions) {
    long connectorRows = connectorRead(spark).count();
    System.out.printf(Locale.ROOT, "Row count through flightsql : %,d%n", connectorRows);
    expectRows(connectorRows, rows);
    if (bounds.failure() == null) {
      expectRows(bounds.rows(), rows);
      long jdbcRows = jdbcRead(spark, bounds, partitions).count();
      System.out.printf(Locale.ROOT, "Row count through spark jdbc: %,d%n", jdbcRows);
      expectRows(jdbcRows, rows);
    }
  }

  private static void expectRows(long actual, long expected) {
    if (actual != expected) {
      throw new IllegalStateException(
          "Read " + actual + " rows where the raw client read " + expected);
    }
  }

  private Timings measure(String way, Timings.Run run) throws Exception {
    return Timings.measure(way, args.iterations(), run);
  }

  /** How many times faster the connector was than the JDBC path and than the raw client. */
  private static String ratios(Timings raw, Timings connector, Timings jdbc) {
    StringBuilder line = new StringBuilder();
    if (connector.measured() && jdbc.measured()) {
      line.append(
          String.format(Locale.ROOT, "flightsql / jdbc = %.2fx ; ", speedup(connector, jdbc)));
    } else {
      line.append("flightsql / jdbc = n/a ; ");
    }
    line.append(String.format(Locale.ROOT, "flightsql / raw = %.2fx", speedup(connector, raw)));
    return line.toString();
  }

  private static double speedup(Timings way, Timings baseline) {
    return baseline.best() / way.best();
  }

  static void printEnvironment(SparkSession spark) {
    Runtime runtime = Runtime.getRuntime();
    System.out.printf(
        Locale.ROOT,
        "Java %s (%s), %d cores, max heap %.1f GB, Spark %s, master %s%n",
        System.getProperty("java.version"),
        System.getProperty("java.vm.name"),
        runtime.availableProcessors(),
        runtime.maxMemory() / 1e9,
        spark.version(),
        spark.sparkContext().master());
  }

  static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
