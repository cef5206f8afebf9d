package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Python quick start ({@code examples/python/quickstart.py}) as a user runs it: PySpark from
 * PyPI ({@link PySparkReleases#DEFAULT}), {@code spark-submit --jars} with the shaded jar and
 * nothing else, against the embedded DuckDB server. No JVM flag is passed: Spark's launcher already
 * opens {@code java.nio}, the only module Arrow needs opened.
 *
 * <p>The virtualenv is {@link PythonVirtualenv}'s, shared with the other PySpark tests.
 */
class PySparkQuickstartIT {
  private static final long LINEITEM_ROWS = 50_000;

  @Test
  void quickstartPrintsTheRowCountAndTheAggregate() throws Exception {
    try (DuckDbFlightSqlServer server = lineitemServer()) {
      ExternalCommand.Result run =
          submit("quickstart.py", "pyspark-quickstart.log", "--uri", server.uri());

      String shown = "spark-submit output (" + run.log() + "):\n" + run.tail(60);
      assertThat(run.exitCode()).as(shown).isZero();
      assertThat(run.output()).as(shown).contains("lineitem rows: " + LINEITEM_ROWS);
      assertThat(shownRows(run.output()))
          .as(shown)
          .containsExactlyElementsOf(duckDbAggregate(server));
    }
  }

  /**
   * The streaming example ({@code examples/python/streaming_copy.py}) with {@code --available-now}:
   * {@code lineitem} copied by its {@code l_orderkey}, which repeats (up to seven lines an order),
   * in micro-batches of at most 20,000 rows, equals its source.
   */
  @Test
  void streamingCopyCopiesLineitemExactly() throws Exception {
    Path checkpoint = TestPaths.buildDir().resolve("pyspark-streaming-copy-checkpoint");
    TestPaths.deleteTree(checkpoint);
    try (DuckDbFlightSqlServer server = lineitemServer()) {
      ExternalCommand.Result run =
          submit(
              "streaming_copy.py",
              "pyspark-streaming-copy.log",
              "--uri",
              server.uri(),
              "--checkpoint",
              checkpoint.toString(),
              "--max-rows-per-trigger",
              "20000",
              "--available-now");
      String shown = "spark-submit output (" + run.log() + "):\n" + run.tail(60);
      assertThat(run.exitCode()).as(shown).isZero();
      assertThat(run.output()).as(shown).contains("batch 0: ").contains("rows/s");
      assertThat(
              DuckDbQueries.single(
                  server,
                  "SELECT count(*) FROM (SELECT * FROM lineitem EXCEPT ALL SELECT * FROM"
                      + " lineitem_copy)"))
          .as("lineitem rows missing from the copy")
          .isZero();
      assertThat(DuckDbQueries.single(server, "SELECT count(*) FROM lineitem_copy"))
          .isEqualTo(LINEITEM_ROWS);
    }
  }

  private static DuckDbFlightSqlServer lineitemServer() throws Exception {
    return DuckDbFlightSqlServer.builder()
        .host(FreePorts.LOOPBACK)
        .port(0)
        .lineitemRows(LINEITEM_ROWS)
        .start();
  }

  /**
   * Runs {@code examples/python/<script>} with {@code spark-submit --jars} and these arguments,
   * from the PySpark virtualenv, its output logged to {@code <log>} in the build directory.
   */
  private static ExternalCommand.Result submit(String script, String log, String... arguments)
      throws Exception {
    Path file = TestPaths.repoRoot().resolve("examples/python").resolve(script);
    assertThat(file).as("the example script").isRegularFile();
    PythonVirtualenv venv = PythonVirtualenv.pyspark(PySparkReleases.DEFAULT);
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            venv.bin("spark-submit").toString(),
            "--master",
            "local[2]",
            "--conf",
            "spark.ui.enabled=false",
            "--jars",
            TestPaths.shadedJar().toString(),
            file.toString()));
    command.addAll(List.of(arguments));
    return ExternalCommand.run(
        "spark-submit",
        command,
        venv.sparkEnvironment(),
        TestPaths.buildDir().resolve(log),
        Duration.ofMinutes(5));
  }

  /**
   * The rows of the table that {@code DataFrame.show()} printed, as lists of cell texts: lines like
   * {@code |A|F|12345.00|123|} between the header's rule and the closing rule.
   */
  private static List<List<String>> shownRows(String output) {
    List<List<String>> rows = new ArrayList<>();
    int rules = 0;
    for (String line : output.split("\\R")) {
      if (line.startsWith("+-")) {
        rules++;
      } else if (rules == 2 && line.startsWith("|")) {
        List<String> cells = new ArrayList<>();
        for (String cell : line.substring(1, line.length() - 1).split("\\|")) {
          cells.add(cell.strip());
        }
        rows.add(cells);
      }
    }
    return rows;
  }

  /** DuckDB's own answer to the quick start's aggregate, as {@code show()} prints it. */
  private static List<List<String>> duckDbAggregate(DuckDbFlightSqlServer server) throws Exception {
    List<List<String>> rows = new ArrayList<>();
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT l_returnflag, l_linestatus, sum(l_quantity), count(*) FROM lineitem"
                    + " GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus")) {
      while (result.next()) {
        BigDecimal sumQty = result.getBigDecimal(3);
        rows.add(
            List.of(
                result.getString(1),
                result.getString(2),
                sumQty.setScale(2).toPlainString(),
                String.valueOf(result.getLong(4))));
      }
    }
    return rows;
  }
}
