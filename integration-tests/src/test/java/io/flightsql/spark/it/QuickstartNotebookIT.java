package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.ExternalCommand;
import io.flightsql.spark.servers.FreePorts;
import io.flightsql.spark.servers.PythonVirtualenv;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The notebook {@code examples/python/quickstart.ipynb}, executed cell by cell as Jupyter would
 * ({@code jupyter execute}, from nbclient) in a virtualenv with PySpark, pandas, pyarrow,
 * matplotlib, ipykernel and the built spark-flightsql wheel (the one the quick start uses, {@link
 * PythonVirtualenv#withWheel}), against the embedded DuckDB server: the notebook's {@code
 * spark_flightsql.configure()} gives Spark the jar, with no path to it anywhere; the server's
 * address reaches it through {@code FLIGHTSQL_URI}. Any cell that raises fails the run. The
 * executed notebook is kept in {@code target/quickstart-executed.ipynb}; the test checks that its
 * outputs show the pushed aggregate and the plot, and that the table it wrote is on the server.
 */
@Execution(ExecutionMode.CONCURRENT)
class QuickstartNotebookIT {
  /**
   * The virtualenv of the notebook, the quick start and the cluster job, beside the wheel: pinned,
   * so that the one made is reused as long as this holds.
   */
  static final List<String> REQUIREMENTS =
      List.of(
          "pyspark==" + PySparkReleases.DEFAULT,
          "pandas==2.3.3",
          "pyarrow==21.0.0",
          "matplotlib==3.10.7",
          "ipykernel==7.4.0",
          "nbclient==0.11.0",
          "nbformat==5.10.4");

  @Test
  void notebookRunsWithoutAnError() throws Exception {
    PythonVirtualenv venv =
        PythonVirtualenv.withWheel(
            "wheel-pyspark-" + PySparkReleases.DEFAULT, REQUIREMENTS, TestPaths.wheel());
    Path notebook = TestPaths.repoRoot().resolve("examples/python/quickstart.ipynb");
    Path executed = TestPaths.buildDir().resolve("quickstart-executed.ipynb");
    Files.deleteIfExists(executed);
    Files.copy(notebook, executed);

    try (DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder()
            .host(FreePorts.LOOPBACK)
            .port(0)
            .lineitemRows(20_000)
            .start()) {
      Map<String, String> environment = new java.util.LinkedHashMap<>(venv.sparkEnvironment());
      environment.put("FLIGHTSQL_URI", server.uri());
      environment.put("MPLBACKEND", "Agg");
      ExternalCommand.Result run =
          ExternalCommand.run(
              "notebook",
              List.of(
                  venv.bin("jupyter").toString(),
                  "execute",
                  "--inplace",
                  "--timeout=300",
                  executed.toString()),
              environment,
              TestPaths.buildDir().resolve("quickstart-notebook.log"),
              Duration.ofMinutes(8));

      String shown = "jupyter execute output (" + run.log() + "):\n" + run.tail(60);
      assertThat(run.exitCode()).as(shown).isZero();
      String outputs = Files.readString(executed, StandardCharsets.UTF_8);
      assertThat(outputs)
          .as("the executed notebook " + executed)
          .contains("PushedAggregates: [SUM(l_quantity), COUNT(*)]")
          .contains("image/png")
          .contains("rows: 20000");
      try (Connection connection = server.newConnection();
          Statement statement = connection.createStatement();
          ResultSet result =
              statement.executeQuery("SELECT count(*), sum(lines) FROM shipmode_summary")) {
        assertThat(result.next()).isTrue();
        assertThat(result.getLong(1)).as("ship modes written").isEqualTo(7);
        assertThat(result.getLong(2)).as("lines since 1995").isPositive();
      }
    }
  }
}
