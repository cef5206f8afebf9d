package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.ExternalCommand;
import io.flightsql.spark.servers.FreePorts;
import io.flightsql.spark.servers.PythonVirtualenv;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shaded jar under every Spark it supports, as users run it: {@code spark-submit --jars} from a
 * pip PySpark of each release line ({@link PySparkReleases#MATRIX}), with {@code
 * integration-tests/src/test/python/spark_matrix.py} against an embedded DuckDB server of its own
 * loaded with {@code spark_matrix.sql}. The script checks, section by section, reads of every type
 * family, each pushdown kind against the same query with pushdown off, reads split by the client,
 * writes in all four save modes, the SQL catalog (namespaces, tables, a pushed aggregate, INSERT,
 * INSERT OVERWRITE, CTAS, DROP), compressed record batches (reads from a second server, with the
 * same data, whose streams are ZSTD-compressed, and writes with option {@code compression}: ZSTD
 * and LZ4 run on the zstd-jni and lz4-java of each Spark, which the jar does not bundle), TIME on
 * 4.1 and later, the optimizer's pushdowns (statistics, runtime filters, samples, and joins pushed
 * on 4.1 and later, with the same rows everywhere), and a streaming copy (a flightsql source to a
 * flightsql sink, in micro-batches of admission control, run again from its checkpoint); this test
 * reads its {@code MATRIX <section> PASSED|SKIPPED|FAILED} lines and then checks the written tables
 * in DuckDB itself.
 *
 * <p>Each run is a cell: a PySpark release, the Java it runs on and the Scala its Spark is built
 * for ({@link #cells()}). Every release runs on this JVM's Java (17), except the newest, which runs
 * on Java 21, the Java of most Spark 4 clusters; Spark 3.5 also runs on Java 11 (the reads and
 * writes sections), and on Spark 3.5 built for Scala 2.13 (Maven Central's {@code spark-sql_2.13},
 * see {@link Spark35Scala213}). Java 21 and 11 come from PyPI ({@link PipJavaRuntime}). The script
 * prints the Java and Scala that ran, and the test checks them against the cell.
 *
 * <p>The cells run four at a time (each {@code spark-submit} waits on the server and on Python much
 * of the time); {@code -Dflightsql.matrix.parallelism=N} changes how many at once, and {@code
 * -Dflightsql.matrix.cells=<id>,...} runs only those cells (ids such as {@code
 * 3.5.9-scala2.13-java17}).
 */
@Execution(ExecutionMode.CONCURRENT)
class SparkVersionMatrixIT {
  private static final long LINEITEM_ROWS = 5_000;
  private static final Pattern SECTION_LINE =
      Pattern.compile("^MATRIX (\\w+) (PASSED|SKIPPED|FAILED)(.*)$", Pattern.MULTILINE);
  private static final Pattern RUNTIME_LINE =
      Pattern.compile("^MATRIX runtime java (\\S+) scala (\\S+)$", Pattern.MULTILINE);

  private static ExecutorService pool;
  private static final Map<Cell, CompletableFuture<Run>> RUNS = new LinkedHashMap<>();

  /** One cell's run: what the script printed and what DuckDB holds afterwards. */
  private record Run(
      ExternalCommand.Result submit, Map<String, String> sections, List<String> writtenRows) {}

  /**
   * A PySpark release on a Java: {@code java} null is this JVM's own. {@code scala213Jars} runs the
   * release's Python and scripts on Spark 3.5's Scala 2.13 jars from Maven Central. {@code
   * sections} names the script's sections the cell runs; empty runs them all.
   */
  record Cell(String pyspark, PipJavaRuntime java, boolean scala213Jars, List<String> sections) {
    int javaFeature() {
      return java == null ? Runtime.version().feature() : java.feature();
    }

    /** pip's PySpark 3.5 is built for Scala 2.12, every later one for 2.13. */
    String scala() {
      return pyspark.startsWith("3.") && !scala213Jars ? "2.12" : "2.13";
    }

    String id() {
      return pyspark + "-scala" + scala() + "-java" + javaFeature();
    }

    @Override
    public String toString() {
      return "PySpark " + pyspark + ", Scala " + scala() + ", Java " + javaFeature();
    }
  }

  static List<Cell> cells() {
    List<Cell> cells = new ArrayList<>();
    for (String version : PySparkReleases.MATRIX) {
      boolean newest = version.equals(PySparkReleases.NEWEST);
      cells.add(new Cell(version, newest ? PipJavaRuntime.JAVA_21 : null, false, List.of()));
    }
    // Spark 3.5 on Java 11: reads and writes, where the Java runs the jar's own client stack
    // (Arrow, gRPC, Netty); Spark 3.5 for Scala 2.13: every section, since the catalog and the
    // planner's interfaces are where Scala's collections cross into the connector.
    String oldest = PySparkReleases.MATRIX.get(0);
    cells.add(new Cell(oldest, PipJavaRuntime.JAVA_11, false, List.of("reads", "writes")));
    cells.add(new Cell(oldest, null, true, List.of()));
    // -Dflightsql.matrix.cells=4.3.0-scala2.13-java21,... runs only those (ids as in the logs).
    String only = System.getProperty("flightsql.matrix.cells", "");
    if (!only.isBlank()) {
      List<String> ids = List.of(only.split(","));
      cells.removeIf(cell -> !ids.contains(cell.id()));
    }
    return cells;
  }

  @BeforeAll
  static void startEveryCell() {
    List<Cell> cells = cells();
    // Four at a time: on two cores more only share the CPU, and each takes longer.
    int parallelism = Integer.getInteger("flightsql.matrix.parallelism", Math.min(cells.size(), 4));
    pool = Executors.newFixedThreadPool(parallelism);
    for (Cell cell : cells) {
      RUNS.put(
          cell,
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return run(cell);
                } catch (Exception e) {
                  throw new IllegalStateException("Running the matrix on " + cell, e);
                }
              },
              pool));
    }
  }

  @AfterAll
  static void stop() {
    pool.shutdownNow();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cells")
  void everySectionPassesOn(Cell cell) throws Throwable {
    String version = cell.pyspark();
    Run run;
    try {
      run = RUNS.get(cell).get();
    } catch (ExecutionException e) {
      throw e.getCause().getCause() != null ? e.getCause().getCause() : e.getCause();
    }
    String shown = "spark-submit output (" + run.submit().log() + "):\n" + run.submit().tail(80);
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("reads", "PASSED");
    expected.put("pushdown", "PASSED");
    expected.put("partitions", "PASSED");
    expected.put("writes", "PASSED");
    expected.put("catalog", "PASSED");
    expected.put("compression", "PASSED");
    expected.put("time", PySparkReleases.hasTimeType(version) ? "PASSED" : "SKIPPED");
    expected.put("optimizer", "PASSED");
    // A streaming copy of lineitem through the connector's source and sink.
    expected.put("streaming", "PASSED");
    if (!cell.sections().isEmpty()) {
      expected.keySet().retainAll(cell.sections());
    }
    assertThat(run.sections()).as(shown).containsExactlyEntriesOf(expected);
    assertThat(run.submit().exitCode()).as(shown).isZero();
    // The Java and Scala the script ran on, as Spark's JVM reports them.
    Matcher runtime = RUNTIME_LINE.matcher(run.submit().output());
    assertThat(runtime.find()).as(shown).isTrue();
    assertThat(runtime.group(1)).as(shown).startsWith(cell.javaFeature() + ".");
    assertThat(runtime.group(2)).as(shown).startsWith(cell.scala() + ".");
    // What the writes section left, as DuckDB itself reads it: overwrite with truncate, then an
    // atomic append of two rows in two tasks.
    assertThat(run.writtenRows()).as(shown).containsExactly("20 t", "21 u", "22 v");
  }

  private static Run run(Cell cell) throws Exception {
    String version = cell.pyspark();
    PythonVirtualenv venv = PythonVirtualenv.pyspark(version);
    Map<String, String> environment = new LinkedHashMap<>(venv.sparkEnvironment());
    if (cell.java() != null) {
      environment.put("JAVA_HOME", cell.java().home().toString());
    }
    if (cell.scala213Jars()) {
      environment.put("SPARK_HOME", Spark35Scala213.sparkHome(venv).toString());
    }
    Path python = TestPaths.repoRoot().resolve("integration-tests/src/test/python");
    try (DuckDbFlightSqlServer server = matrixServer(python, "none");
        DuckDbFlightSqlServer compressing = matrixServer(python, "zstd")) {
      List<String> command =
          new ArrayList<>(
              List.of(
                  venv.bin("spark-submit").toString(),
                  "--master",
                  "local[2]",
                  "--conf",
                  "spark.ui.enabled=false",
                  "--conf",
                  "spark.sql.shuffle.partitions=4",
                  "--jars",
                  TestPaths.shadedJar().toString(),
                  python.resolve("spark_matrix.py").toString(),
                  "--uri",
                  server.uri(),
                  "--lineitem-rows",
                  Long.toString(LINEITEM_ROWS),
                  "--compressed-uri",
                  compressing.uri()));
      if (!cell.sections().isEmpty()) {
        command.add("--only");
        command.addAll(cell.sections());
      }
      ExternalCommand.Result submit =
          ExternalCommand.run(
              cell.id(),
              command,
              environment,
              TestPaths.buildDir().resolve("spark-matrix-" + cell.id() + ".log"),
              Duration.ofMinutes(15));
      return new Run(submit, sections(submit.output()), writtenRows(server));
    }
  }

  /** A server loaded with {@code spark_matrix.sql}, its streams compressed with {@code codec}. */
  private static DuckDbFlightSqlServer matrixServer(Path python, String codec) throws Exception {
    return DuckDbFlightSqlServer.builder()
        .host(FreePorts.LOOPBACK)
        .port(0)
        .lineitemRows(LINEITEM_ROWS)
        .data(python.resolve("spark_matrix.sql"))
        .compression(codec)
        .start();
  }

  /** Each section's status, in the order the script printed them. */
  private static Map<String, String> sections(String output) {
    Map<String, String> sections = new LinkedHashMap<>();
    Matcher line = SECTION_LINE.matcher(output);
    while (line.find()) {
      sections.put(line.group(1), line.group(2));
    }
    return sections;
  }

  private static List<String> writtenRows(DuckDbFlightSqlServer server) throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery("SELECT id, name FROM matrix_writes ORDER BY id")) {
      while (result.next()) {
        rows.add(result.getInt(1) + " " + result.getString(2));
      }
    } catch (java.sql.SQLException e) {
      rows.add("no table matrix_writes: " + e.getMessage());
    }
    return rows;
  }
}
