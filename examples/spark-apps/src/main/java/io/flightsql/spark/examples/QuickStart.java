package io.flightsql.spark.examples;

import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.time.LocalDate;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The first program to run: reads a Flight SQL table into Spark, with the DataFrame API and with
 * SQL.
 *
 * <p>Without arguments it starts the embedded DuckDB Flight SQL server in this JVM, with a
 * 1,000,000-row {@code lineitem} table served as 2 endpoints. {@code --uri grpc://host:port} reads
 * from a running server instead, which must have a {@code lineitem} table shaped like TPC-H's.
 *
 * <pre>mvn -q -pl examples/spark-apps exec:exec@quickstart</pre>
 */
public final class QuickStart {

  private static final String USAGE = "Usage: QuickStart [--uri grpc://host:port]";

  private QuickStart() {}

  public static void main(String[] args) throws Exception {
    String externalUri;
    try {
      externalUri = parseUri(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    DuckDbFlightSqlServer server = null;
    try {
      if (externalUri == null) {
        server =
            timed(
                "Start the embedded DuckDB Flight SQL server (1,000,000 rows, 2 endpoints)",
                () -> DuckDbFlightSqlServer.builder().port(0).start());
      }
      String uri = externalUri != null ? externalUri : server.uri();
      System.out.println("Flight SQL server: " + uri);
      run(uri);
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  private static void run(String uri) throws Exception {
    SparkSession spark =
        timed(
            "Start Spark (local[2])",
            () ->
                SparkSession.builder()
                    .appName("spark-flightsql quick start")
                    .master("local[2]")
                    .config("spark.ui.enabled", false)
                    // A handful of groups: two shuffle partitions instead of the default 200.
                    .config("spark.sql.shuffle.partitions", 2)
                    .getOrCreate());
    try {
      // Only the schema is fetched here; rows travel when an action runs.
      Dataset<Row> lineitem =
          timed(
              "Resolve the schema of lineitem",
              () -> {
                Dataset<Row> table =
                    spark
                        .read()
                        .format("flightsql")
                        .option("uri", uri)
                        .option("dbtable", "lineitem")
                        .load();
                table.printSchema();
                return table;
              });

      long rows = timed("Count the rows", lineitem::count);
      System.out.printf(Locale.ROOT, "lineitem has %,d rows%n", rows);

      // TPC-H Q1, shortened: the filter and the grouping run in Spark, over every row read.
      Dataset<Row> pricingSummary =
          lineitem
              .where(col("l_shipdate").leq(lit(LocalDate.of(1998, 9, 2))))
              .groupBy("l_returnflag", "l_linestatus")
              .agg(
                  sum("l_quantity").as("sum_qty"),
                  sum("l_extendedprice").as("sum_base_price"),
                  avg("l_discount").as("avg_disc"),
                  count(lit(1)).as("count_order"))
              .orderBy("l_returnflag", "l_linestatus");
      timed("Pricing summary (TPC-H Q1 style)", () -> show(pricingSummary));

      // The same source from SQL. With OPTIONS (query '...') instead of dbtable, the server
      // runs that query and Spark sees its result as the view.
      spark.sql(
          "CREATE TEMPORARY VIEW lineitem USING flightsql "
              + "OPTIONS (uri '"
              + uri
              + "', dbtable 'lineitem')");
      Dataset<Row> shipModes =
          spark.sql(
              "SELECT l_shipmode, count(*) AS line_items, round(avg(l_quantity), 2) AS avg_qty "
                  + "FROM lineitem WHERE l_receiptdate > l_commitdate "
                  + "GROUP BY l_shipmode ORDER BY line_items DESC");
      timed("Late deliveries per ship mode (Spark SQL on a temporary view)", () -> show(shipModes));

      // Writing back: each task streams its rows to the server as Arrow batches through one
      // DoPut (bulk ingestion here); 'overwrite' replaces the table if an earlier run left it.
      timed(
          "Write the pricing summary back to the server, and read it again",
          () -> {
            pricingSummary
                .write()
                .format("flightsql")
                .option("uri", uri)
                .option("dbtable", "pricing_summary")
                .mode("overwrite")
                .save();
            return show(
                spark
                    .read()
                    .format("flightsql")
                    .option("uri", uri)
                    .option("query", "SELECT * FROM pricing_summary ORDER BY 1, 2")
                    .load());
          });
    } finally {
      spark.stop();
    }
  }

  private static Void show(Dataset<Row> result) {
    result.show(false);
    return null;
  }

  /** Runs one step between its title and the time it took. */
  private static <T> T timed(String step, Callable<T> work) throws Exception {
    System.out.printf(Locale.ROOT, "%n== %s%n", step);
    long start = System.nanoTime();
    T result = work.call();
    System.out.printf(Locale.ROOT, "   (%.2f s)%n", (System.nanoTime() - start) / 1e9);
    return result;
  }

  private static String parseUri(String[] args) {
    if (args.length == 0) {
      return null;
    }
    if (args.length == 2 && args[0].equals("--uri")) {
      return args[1];
    }
    throw new IllegalArgumentException(
        "Invalid arguments " + String.join(" ", args) + ": expected none or --uri. " + USAGE);
  }
}
