package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.ExternalCommand;
import io.flightsql.spark.servers.FreePorts;
import io.flightsql.spark.servers.LoopbackProcess;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The connector from Spark Connect clients ({@code integration-tests/src/test/python/
 * connect_checks.py}): a read whose filter and aggregate are pushed (EXPLAIN, and the rows against
 * Spark's own), writes in every save mode, the catalog (SHOW TABLES, SELECT, CTAS) and the
 * connector's error messages for a bad option value and a missing table, as the client receives
 * them. Two clients, at the same time, against one embedded DuckDB server:
 *
 * <ul>
 *   <li>{@code remote("local")} from PySpark {@link PySparkReleases#NEWEST} with the
 *       spark-flightsql wheel: PySpark starts the Connect server in a JVM of its own, and {@code
 *       spark_flightsql.configure()} gives it the jar;
 *   <li>{@code pyspark-client} {@link PySparkReleases#CONNECT_CLIENT} (no JVM) against a separate
 *       Connect server process, {@code spark-submit --class ...SparkConnectServer --jars "$(python
 *       -m spark_flightsql --jar)"} from that PySpark.
 * </ul>
 */
@Execution(ExecutionMode.CONCURRENT)
class SparkConnectIT {
  /** PySpark with what its Connect client needs (its {@code connect} extra), pinned. */
  static final List<String> CONNECT_REQUIREMENTS =
      List.of(
          "pyspark==" + PySparkReleases.NEWEST,
          "pandas==2.3.3",
          "pyarrow==21.0.0",
          "grpcio==1.85.3",
          "grpcio-status==1.85.3",
          "googleapis-common-protos==1.76.0",
          "zstandard==0.25.0");

  private static final long LINEITEM_ROWS = 5_000;
  private static final Pattern SECTION_LINE =
      Pattern.compile("^CONNECT (\\w+) (PASSED|FAILED)(.*)$", Pattern.MULTILINE);

  private static DuckDbFlightSqlServer server;
  private static BackgroundRun local;
  private static BackgroundRun remote;

  @BeforeAll
  static void runBothClients() throws Exception {
    server =
        DuckDbFlightSqlServer.builder()
            .host(FreePorts.LOOPBACK)
            .port(0)
            .lineitemRows(LINEITEM_ROWS)
            .start();
    local = BackgroundRun.start("localClient", SparkConnectIT::localClient);
    remote = BackgroundRun.start("remoteClient", SparkConnectIT::remoteClient);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void localConnectServerStartedThroughConfigure() throws Exception {
    checkClient(local.await(), "local");
  }

  @Test
  void pysparkClientAgainstAConnectServerStartedWithTheJar() throws Exception {
    checkClient(remote.await(), "remote");
  }

  private static void checkClient(ExternalCommand.Result run, String prefix) throws Exception {
    String shown = "client output (" + run.log() + "):\n" + run.tail(80);
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("read", "PASSED");
    expected.put("writes", "PASSED");
    expected.put("catalog", "PASSED");
    expected.put("errors", "PASSED");
    assertThat(sections(run.output())).as(shown).containsExactlyEntriesOf(expected);
    assertThat(run.exitCode()).as(shown).isZero();
    // What the writes left, as DuckDB itself reads it.
    assertThat(query("SELECT id, name FROM " + prefix + "_writes ORDER BY id"))
        .containsExactly("7 x");
    assertThat(query("SELECT id, name FROM " + prefix + "_writes_new ORDER BY id"))
        .containsExactly("1 a", "2 b");
  }

  private static ExternalCommand.Result localClient() throws Exception {
    PythonVirtualenv venv =
        PythonVirtualenv.withWheel(
            "connect-pyspark-" + PySparkReleases.NEWEST, CONNECT_REQUIREMENTS, TestPaths.wheel());
    return ExternalCommand.run(
        "connect-local",
        List.of(
            venv.python().toString(),
            script().toString(),
            "--uri",
            server.uri(),
            "--remote",
            "local[2]",
            "--prefix",
            "local"),
        venv.sparkEnvironment(),
        TestPaths.buildDir().resolve("spark-connect-local.log"),
        Duration.ofMinutes(15));
  }

  private static ExternalCommand.Result remoteClient() throws Exception {
    PythonVirtualenv serverVenv =
        PythonVirtualenv.withWheel(
            "connect-pyspark-" + PySparkReleases.NEWEST, CONNECT_REQUIREMENTS, TestPaths.wheel());
    PythonVirtualenv clientVenv =
        PythonVirtualenv.of(
            "pyspark-client-" + PySparkReleases.CONNECT_CLIENT,
            List.of("pyspark-client==" + PySparkReleases.CONNECT_CLIENT));
    String jar = InstalledJar.of(serverVenv);
    LoopbackProcess connectServer =
        LoopbackProcess.start(
            "Spark Connect server",
            port ->
                List.of(
                    serverVenv.bin("spark-submit").toString(),
                    "--master",
                    "local[2]",
                    "--conf",
                    "spark.ui.enabled=false",
                    "--conf",
                    "spark.connect.grpc.binding.address=" + FreePorts.LOOPBACK,
                    "--conf",
                    "spark.connect.grpc.binding.port=" + port,
                    "--jars",
                    jar,
                    "--class",
                    "org.apache.spark.sql.connect.service.SparkConnectServer",
                    "spark-internal"),
            TestPaths.buildDir().resolve("spark-connect-server.log"),
            2,
            Duration.ofMinutes(5),
            serverVenv.sparkEnvironment());
    try {
      Map<String, String> environment = new LinkedHashMap<>(clientVenv.sparkEnvironment());
      environment.remove("JAVA_HOME");
      return ExternalCommand.run(
          "connect-remote",
          List.of(
              clientVenv.python().toString(),
              script().toString(),
              "--uri",
              server.uri(),
              "--remote",
              "sc://" + FreePorts.LOOPBACK + ":" + connectServer.port(),
              "--prefix",
              "remote"),
          environment,
          TestPaths.buildDir().resolve("spark-connect-remote.log"),
          Duration.ofMinutes(15));
    } finally {
      ExternalCommand.destroyTree(connectServer.process().toHandle());
    }
  }

  private static Path script() {
    return TestPaths.repoRoot().resolve("integration-tests/src/test/python/connect_checks.py");
  }

  private static Map<String, String> sections(String output) {
    Map<String, String> sections = new LinkedHashMap<>();
    Matcher line = SECTION_LINE.matcher(output);
    while (line.find()) {
      sections.put(line.group(1), line.group(2));
    }
    return sections;
  }

  private static List<String> query(String sql) throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      while (result.next()) {
        rows.add(result.getInt(1) + " " + result.getString(2));
      }
    }
    return rows;
  }
}
