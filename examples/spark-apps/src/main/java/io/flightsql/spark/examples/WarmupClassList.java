package io.flightsql.spark.examples;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Writes the connector's warm-up class list ({@code warmup-classes.txt}, read by the connector's
 * {@code Warmup}): the classes that the first reads and the first write of a JVM load, in the order
 * they loaded them, after Spark's own first job. Run it after a change that makes a first read load
 * other classes (a new dependency, an Arrow or gRPC upgrade):
 *
 * <pre>
 * mvn -q install -DskipTests
 * mvn -q -pl examples/spark-apps exec:exec@warmup-classes
 * </pre>
 *
 * <p>The JVM logs every class it loads ({@code -Xlog:class+load}, set by the execution) to the file
 * named by system property {@code warmup.log}; this program marks the JVM's uptime around the
 * connector's first uses on the embedded DuckDB server (a query read with a pushed filter, a table
 * read, an append), then keeps the classes loaded in that window from the connector's jar (shaded
 * ones written unshaded) and Spark's and Scala's. JDK classes, lambdas and generated classes are
 * left out: they come from the JDK's shared archive or cannot be loaded by name. The server's own
 * classes (unshaded Arrow, in this JVM for the run only) are not from the connector's jar.
 */
public final class WarmupClassList {
  private static final String SHADED = "io.flightsql.spark.shaded.";
  private static final Pattern LINE = Pattern.compile("^\\[(\\d+)ms\\] (\\S+) source: (.*)$");

  private WarmupClassList() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1 || System.getProperty("warmup.log") == null) {
      System.err.println(
          "Usage: -Xlog:class+load=info:file=LOG:uptimemillis -Dwarmup.log=LOG"
              + " io.flightsql.spark.examples.WarmupClassList OUTPUT");
      System.exit(2);
    }
    Path log = Path.of(System.getProperty("warmup.log"));
    Path output = Path.of(args[0]);
    long from;
    long to;
    try (DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder().port(0).endpoints(1).lineitemRows(1_000).start()) {
      SparkSession spark =
          SparkSession.builder()
              .appName("spark-flightsql warm-up class list")
              .master("local[2]")
              .config("spark.ui.enabled", false)
              .getOrCreate();
      try {
        spark.range(0, 10, 1, 1).toDF().collectAsList();
        from = uptime();
        firstUses(spark, server.uri());
        to = uptime();
      } finally {
        spark.stop();
      }
    }
    List<String> classes = classesLoaded(log, from, to);
    List<String> text = new ArrayList<>();
    text.add("# The classes of a JVM's first reads and write, for the connector's warm-up.");
    text.add("# Written by io.flightsql.spark.examples.WarmupClassList; do not edit.");
    text.addAll(classes);
    Files.write(output, text, StandardCharsets.UTF_8);
    System.out.printf(Locale.ROOT, "%d classes written to %s%n", classes.size(), output);
    System.exit(0);
  }

  private static void firstUses(SparkSession spark, String uri) {
    List<Row> rows =
        spark
            .read()
            .format("flightsql")
            .option("uri", uri)
            .option("query", "SELECT l_orderkey, l_comment FROM lineitem")
            .load()
            .where("l_orderkey <= 3")
            .collectAsList();
    if (rows.isEmpty()) {
      throw new IllegalStateException("The query read no rows");
    }
    long count =
        spark
            .read()
            .format("flightsql")
            .option("uri", uri)
            .option("dbtable", "lineitem")
            .load()
            .count();
    spark
        .range(0, 100)
        .selectExpr("id", "CAST(id AS STRING) AS name", "id * 1.5 AS score")
        .write()
        .format("flightsql")
        .option("uri", uri)
        .option("dbtable", "warmup_written")
        .mode("append")
        .save();
    System.out.printf(Locale.ROOT, "read %d and %d rows, wrote 100%n", rows.size(), count);
  }

  private static long uptime() {
    return ManagementFactory.getRuntimeMXBean().getUptime();
  }

  /** The connector's, Spark's and Scala's classes loaded between {@code from} and {@code to}. */
  static List<String> classesLoaded(Path log, long from, long to) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    String connectorSource = null;
    for (String line : lines) {
      Matcher m = LINE.matcher(line);
      if (m.matches() && m.group(2).equals("io.flightsql.spark.FlightSqlDataSource")) {
        connectorSource = m.group(3);
      }
    }
    if (connectorSource == null) {
      throw new IllegalStateException("The log " + log + " shows no class of the connector");
    }
    Set<String> classes = new LinkedHashSet<>();
    for (String line : lines) {
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        continue;
      }
      long at = Long.parseLong(m.group(1));
      String name = m.group(2);
      if (at < from || at > to || name.contains("$$Lambda") || name.contains("/0x")) {
        continue;
      }
      if (m.group(3).equals(connectorSource)) {
        classes.add(name.startsWith(SHADED) ? name.substring(SHADED.length()) : name);
      } else if ((name.startsWith("org.apache.spark.") || name.startsWith("scala."))
          && !name.contains("GeneratedClass")) {
        classes.add(name);
      }
    }
    return new ArrayList<>(classes);
  }
}
