package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Python quick start ({@code examples/python/quickstart.py}) as a user runs it: PySpark 4.1.3
 * from PyPI, {@code spark-submit --jars} with the shaded jar and nothing else, against the embedded
 * DuckDB server. No JVM flag is passed: Spark's launcher already opens {@code java.nio}, the only
 * module Arrow needs opened.
 *
 * <p>The virtualenv lives in {@code ~/.cache/spark-flightsql/pyspark-4.1.3} and is reused while it
 * holds that PySpark; creating it downloads PySpark (about 450 MB) once. Without {@code python3}
 * the test is skipped, except in CI ({@code CI=true}), where it fails ({@link RequiredTool}).
 */
class PySparkQuickstartIT {
  private static final String PYSPARK_VERSION = "4.1.3";
  private static final long LINEITEM_ROWS = 50_000;

  @Test
  void quickstartPrintsTheRowCountAndTheAggregate() throws Exception {
    Path jar = TestPaths.shadedJar();
    Path script = TestPaths.repoRoot().resolve("examples/python/quickstart.py");
    assertThat(script).as("the quick start script").isRegularFile();
    Path venv = pysparkVirtualenv();

    try (DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder()
            .host(FreePorts.LOOPBACK)
            .port(0)
            .lineitemRows(LINEITEM_ROWS)
            .start()) {
      Map<String, String> environment = new LinkedHashMap<>();
      environment.put("JAVA_HOME", System.getProperty("java.home"));
      environment.put("PYSPARK_PYTHON", venv.resolve("bin/python").toString());
      environment.put("PYSPARK_DRIVER_PYTHON", venv.resolve("bin/python").toString());
      environment.put("SPARK_LOCAL_IP", FreePorts.LOOPBACK);
      ExternalCommand.Result run =
          ExternalCommand.run(
              "spark-submit",
              List.of(
                  venv.resolve("bin/spark-submit").toString(),
                  "--master",
                  "local[2]",
                  "--conf",
                  "spark.ui.enabled=false",
                  "--jars",
                  jar.toString(),
                  script.toString(),
                  "--uri",
                  server.uri()),
              environment,
              TestPaths.buildDir().resolve("pyspark-quickstart.log"),
              Duration.ofMinutes(5));

      String shown = "spark-submit output (" + run.log() + "):\n" + run.tail(60);
      assertThat(run.exitCode()).as(shown).isZero();
      assertThat(run.output()).as(shown).contains("lineitem rows: " + LINEITEM_ROWS);
      assertThat(shownRows(run.output()))
          .as(shown)
          .containsExactlyElementsOf(duckDbAggregate(server));
    }
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

  /** A virtualenv with PySpark {@value #PYSPARK_VERSION}: reused, or made now. */
  private static Path pysparkVirtualenv() throws IOException, InterruptedException {
    Path venv = TestPaths.userCache().resolve("pyspark-" + PYSPARK_VERSION);
    Path logs = TestPaths.buildDir();
    if (Files.isExecutable(venv.resolve("bin/spark-submit"))
        && Files.isExecutable(venv.resolve("bin/pip"))) {
      ExternalCommand.Result show =
          ExternalCommand.run(
              "pip show",
              List.of(venv.resolve("bin/pip").toString(), "show", "pyspark"),
              Map.of(),
              logs.resolve("pip-show.log"),
              Duration.ofMinutes(1));
      if (show.exitCode() == 0 && show.output().contains("Version: " + PYSPARK_VERSION)) {
        return venv;
      }
    }
    Path python =
        RequiredTool.PYTHON3.require("creates the quick start's PySpark virtualenv in " + venv);
    Files.createDirectories(venv.getParent());
    ExternalCommand.Result create =
        ExternalCommand.run(
            "python3 -m venv",
            List.of(python.toString(), "-m", "venv", "--clear", venv.toString()),
            Map.of(),
            logs.resolve("venv-create.log"),
            Duration.ofMinutes(2));
    if (create.exitCode() != 0) {
      fail("python3 -m venv " + venv + " failed:\n" + create.tail(30));
    }
    System.out.println("Installing pyspark==" + PYSPARK_VERSION + " into " + venv + " (once)");
    ExternalCommand.Result install =
        ExternalCommand.run(
            "pip install",
            List.of(
                venv.resolve("bin/pip").toString(),
                "install",
                "--disable-pip-version-check",
                "--progress-bar",
                "off",
                "pyspark==" + PYSPARK_VERSION),
            Map.of(),
            logs.resolve("pip-install.log"),
            Duration.ofMinutes(15));
    if (install.exitCode() != 0) {
      fail("pip install pyspark==" + PYSPARK_VERSION + " failed:\n" + install.tail(30));
    }
    return venv;
  }
}
