package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
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
 * 4.1 and later, and a streaming copy (a flightsql source to a flightsql sink, in micro-batches of
 * admission control, run again from its checkpoint); this test reads its {@code MATRIX <section>
 * PASSED|SKIPPED|FAILED} lines and then checks the written tables in DuckDB itself.
 *
 * <p>The versions run at the same time (each {@code spark-submit} waits on the server and on Python
 * much of the time); {@code -Dflightsql.matrix.parallelism=N} changes how many at once. Spark 3.5
 * runs on this JVM's Java 17, like the others.
 */
class SparkVersionMatrixIT {
  private static final long LINEITEM_ROWS = 5_000;
  private static final Pattern SECTION_LINE =
      Pattern.compile("^MATRIX (\\w+) (PASSED|SKIPPED|FAILED)(.*)$", Pattern.MULTILINE);

  private static ExecutorService pool;
  private static final Map<String, CompletableFuture<Run>> RUNS = new LinkedHashMap<>();

  /** One version's run: what the script printed and what DuckDB holds afterwards. */
  private record Run(
      ExternalCommand.Result submit, Map<String, String> sections, List<String> writtenRows) {}

  static List<String> versions() {
    return PySparkReleases.MATRIX;
  }

  @BeforeAll
  static void startEveryVersion() {
    int parallelism =
        Integer.getInteger("flightsql.matrix.parallelism", PySparkReleases.MATRIX.size());
    pool = Executors.newFixedThreadPool(parallelism);
    for (String version : PySparkReleases.MATRIX) {
      RUNS.put(
          version,
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return run(version);
                } catch (Exception e) {
                  throw new IllegalStateException("Running the matrix on PySpark " + version, e);
                }
              },
              pool));
    }
  }

  @AfterAll
  static void stop() {
    pool.shutdownNow();
  }

  @ParameterizedTest(name = "PySpark {0}")
  @MethodSource("versions")
  void everySectionPassesOn(String version) throws Throwable {
    Run run;
    try {
      run = RUNS.get(version).get();
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
    // A streaming copy of lineitem through the connector's source and sink.
    expected.put("streaming", "PASSED");
    assertThat(run.sections()).as(shown).containsExactlyEntriesOf(expected);
    assertThat(run.submit().exitCode()).as(shown).isZero();
    // What the writes section left, as DuckDB itself reads it: overwrite with truncate, then an
    // atomic append of two rows in two tasks.
    assertThat(run.writtenRows()).as(shown).containsExactly("20 t", "21 u", "22 v");
  }

  private static Run run(String version) throws Exception {
    PythonVirtualenv venv = PythonVirtualenv.pyspark(version);
    Path python = TestPaths.repoRoot().resolve("integration-tests/src/test/python");
    try (DuckDbFlightSqlServer server = matrixServer(python, "none");
        DuckDbFlightSqlServer compressing = matrixServer(python, "zstd")) {
      ExternalCommand.Result submit =
          ExternalCommand.run(
              "pyspark-" + version,
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
                  compressing.uri()),
              venv.sparkEnvironment(),
              TestPaths.buildDir().resolve("spark-matrix-" + version + ".log"),
              Duration.ofMinutes(10));
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
