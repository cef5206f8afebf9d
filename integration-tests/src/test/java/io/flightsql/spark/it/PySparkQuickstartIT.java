package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.ExternalCommand;
import io.flightsql.spark.servers.FreePorts;
import io.flightsql.spark.servers.PythonVirtualenv;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The Python quick start ({@code examples/python/quickstart.py}) as a user runs it after {@code pip
 * install} of the built spark-flightsql wheel beside PySpark {@link PySparkReleases#DEFAULT} (a
 * virtualenv of this build, {@link PythonVirtualenv#withWheel}), against the embedded DuckDB
 * server, three ways at once:
 *
 * <ul>
 *   <li>{@code python quickstart.py}: {@code spark_flightsql.configure()} puts the jar on {@code
 *       spark.jars} before PySpark starts Spark's JVM; no {@code --jars}, no Maven;
 *   <li>{@code spark-submit quickstart.py}, whose JVM starts before the script without the jar:
 *       {@code configure()} stops the script with its message, no {@code ClassNotFoundException};
 *   <li>{@code spark-submit --jars "$(python -m spark_flightsql --jar)" quickstart.py}: the JVM has
 *       the jar, and {@code configure()} lets the script run.
 * </ul>
 *
 * Beside them, the streaming example ({@code python streaming_copy.py --available-now}) copies the
 * same server's {@code lineitem} into a new table.
 *
 * <p>No JVM flag is passed: Spark's launcher already opens {@code java.nio}, the only module Arrow
 * needs opened.
 */
@Execution(ExecutionMode.CONCURRENT)
class PySparkQuickstartIT {
  private static final long LINEITEM_ROWS = 50_000;

  private static DuckDbFlightSqlServer server;
  private static BackgroundRun python;
  private static BackgroundRun submitWithoutJar;
  private static BackgroundRun submitWithJar;
  private static BackgroundRun streamingCopy;

  @BeforeAll
  static void runTheExamples() throws Exception {
    server =
        DuckDbFlightSqlServer.builder()
            .host(FreePorts.LOOPBACK)
            .port(0)
            .lineitemRows(LINEITEM_ROWS)
            .start();
    python =
        BackgroundRun.start(
            "python quickstart.py",
            () -> quickstart("python-quickstart", List.of(venv().python().toString())));
    submitWithoutJar =
        BackgroundRun.start(
            "spark-submit quickstart.py",
            () ->
                quickstart(
                    "spark-submit-quickstart-no-jar",
                    List.of(
                        venv().bin("spark-submit").toString(),
                        "--master",
                        "local[2]",
                        "--conf",
                        "spark.ui.enabled=false")));
    submitWithJar =
        BackgroundRun.start(
            "spark-submit --jars quickstart.py",
            () ->
                quickstart(
                    "spark-submit-quickstart",
                    List.of(
                        venv().bin("spark-submit").toString(),
                        "--master",
                        "local[2]",
                        "--conf",
                        "spark.ui.enabled=false",
                        "--jars",
                        InstalledJar.of(venv()))));
    streamingCopy = BackgroundRun.start("python streaming_copy.py", PySparkQuickstartIT::copy);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void pythonQuickstartPrintsTheRowCountAndTheAggregate() throws Exception {
    checkQuickstart(python.await());
  }

  @Test
  void sparkSubmitWithTheInstalledJarRunsTheQuickstart() throws Exception {
    checkQuickstart(submitWithJar.await());
  }

  @Test
  void sparkSubmitWithoutTheJarStopsAtConfigureWithWhatToDo() throws Exception {
    ExternalCommand.Result run = submitWithoutJar.await();
    String shown = "spark-submit output (" + run.log() + "):\n" + run.tail(60);
    assertThat(run.exitCode()).as(shown).isNotZero();
    assertThat(run.output())
        .as(shown)
        .contains(
            "spark_flightsql.SparkFlightSqlError: Spark's JVM is already running in this process"
                + " without spark-flightsql's jar")
        .contains("--jars " + InstalledJar.of(venv()))
        .doesNotContain("ClassNotFoundException")
        .doesNotContain("lineitem rows");
  }

  private static PythonVirtualenv venv() throws Exception {
    return PythonVirtualenv.withWheel(
        "wheel-pyspark-" + PySparkReleases.DEFAULT,
        QuickstartNotebookIT.REQUIREMENTS,
        TestPaths.wheel());
  }

  private static ExternalCommand.Result quickstart(String label, List<String> launcher)
      throws Exception {
    return quickstart(label, "quickstart.py", launcher);
  }

  /** Runs {@code examples/python/<script> --uri <server> <arguments>} with {@code launcher}. */
  private static ExternalCommand.Result quickstart(
      String label, String script, List<String> launcher, String... arguments) throws Exception {
    Path file = TestPaths.repoRoot().resolve("examples/python").resolve(script);
    List<String> command = new ArrayList<>(launcher);
    command.add(file.toString());
    command.add("--uri");
    command.add(server.uri());
    command.addAll(List.of(arguments));
    Map<String, String> environment = new LinkedHashMap<>(venv().sparkEnvironment());
    // PySpark's own JVM (python quickstart.py) is told these through spark-submit's arguments.
    environment.put(
        "PYSPARK_SUBMIT_ARGS", "--master local[2] --conf spark.ui.enabled=false pyspark-shell");
    return ExternalCommand.run(
        label,
        command,
        environment,
        TestPaths.buildDir().resolve(label + ".log"),
        Duration.ofMinutes(8));
  }

  private static void checkQuickstart(ExternalCommand.Result run) throws Exception {
    String shown = "quick start output (" + run.log() + "):\n" + run.tail(60);
    assertThat(run.exitCode()).as(shown).isZero();
    assertThat(run.output()).as(shown).contains("lineitem rows: " + LINEITEM_ROWS);
    assertThat(shownRows(run.output()))
        .as(shown)
        .containsExactlyElementsOf(duckDbAggregate(server));
  }

  /**
   * The streaming example ({@code examples/python/streaming_copy.py}), run as {@code python
   * streaming_copy.py --available-now} from the wheel's virtualenv: {@code lineitem} copied by its
   * {@code l_orderkey}, which repeats (up to seven lines an order), in micro-batches of at most
   * 20,000 rows, equals its source.
   */
  @Test
  void streamingCopyCopiesLineitemExactly() throws Exception {
    ExternalCommand.Result run = streamingCopy.await();
    String shown = "streaming copy output (" + run.log() + "):\n" + run.tail(60);
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

  private static ExternalCommand.Result copy() throws Exception {
    Path checkpoint = TestPaths.buildDir().resolve("pyspark-streaming-copy-checkpoint");
    TestPaths.deleteTree(checkpoint);
    return quickstart(
        "python-streaming-copy",
        "streaming_copy.py",
        List.of(venv().python().toString()),
        "--checkpoint",
        checkpoint.toString(),
        "--max-rows-per-trigger",
        "20000",
        "--available-now");
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
