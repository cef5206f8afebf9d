package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.ExternalCommand;
import io.flightsql.spark.servers.FreePorts;
import io.flightsql.spark.servers.PythonVirtualenv;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The ETL example ({@code examples/python/etl_job.py}) on a real Spark standalone cluster: a master
 * and a worker started as processes of their own from the pip PySpark's {@code spark-class}, two
 * executors of one core each, and the job run as {@code python etl_job.py --master spark://...}
 * from a virtualenv with the built spark-flightsql wheel ({@link PythonVirtualenv#withWheel}): no
 * {@code --jars} and no Maven; {@code spark_flightsql.configure()} puts the jar on {@code
 * spark.jars}, and Spark ships it to the executors. The job reads {@code lineitem} (split into four
 * queries) and {@code shipmodes}, joins, aggregates, and overwrites {@code carrier_revenue} with
 * {@code atomic=true}.
 *
 * <p>The test compares the written table with DuckDB's own answer to the same query, and checks
 * that the reads ran in the executors' JVMs: each executor's log (the worker's {@code work/}
 * directory) shows the connector opening its gRPC channel to the server and finishing tasks, and
 * the driver's log shows no task run.
 */
@Execution(ExecutionMode.CONCURRENT)
class SparkClusterIT {
  private static final long LINEITEM_ROWS = 20_000;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  @Test
  void etlJobRunsOnExecutorsAndWritesTheTable() throws Exception {
    PythonVirtualenv venv =
        PythonVirtualenv.withWheel(
            "wheel-pyspark-" + PySparkReleases.DEFAULT,
            QuickstartNotebookIT.REQUIREMENTS,
            TestPaths.wheel());
    Path examples = TestPaths.repoRoot().resolve("examples/python");
    Path dir = TestPaths.buildDir().resolve("spark-cluster");
    Path work = dir.resolve("work");
    deleteTree(dir);
    Files.createDirectories(work);
    int masterPort = FreePorts.pick();
    String master = "spark://" + FreePorts.LOOPBACK + ":" + masterPort;

    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .host(FreePorts.LOOPBACK)
                .port(0)
                .lineitemRows(LINEITEM_ROWS)
                .data(examples.resolve("etl_shipmodes.sql"))
                .start();
        Daemon masterProcess =
            Daemon.start(
                venv,
                dir.resolve("master.log"),
                "org.apache.spark.deploy.master.Master",
                "--host",
                FreePorts.LOOPBACK,
                "--port",
                Integer.toString(masterPort),
                "--webui-port",
                Integer.toString(FreePorts.pick()));
        Daemon workerProcess =
            Daemon.start(
                venv,
                dir.resolve("worker.log"),
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                FreePorts.LOOPBACK,
                "--cores",
                "2",
                "--memory",
                "2g",
                "--work-dir",
                work.toString(),
                "--webui-port",
                Integer.toString(FreePorts.pick()),
                master)) {
      masterProcess.awaitLog("I have been elected leader", START_TIMEOUT);
      workerProcess.awaitLog("Successfully registered with master", START_TIMEOUT);

      Map<String, String> environment = new LinkedHashMap<>(venv.sparkEnvironment());
      // What the job's own JVM is started with: PySpark passes these to spark-submit.
      environment.put(
          "PYSPARK_SUBMIT_ARGS",
          "--conf spark.ui.enabled=false --conf spark.executor.cores=1"
              + " --conf spark.executor.memory=768m --conf spark.sql.shuffle.partitions=4"
              // The connector's plugin, on the driver and on every executor: Spark fails to
              // start either where the class cannot be loaded from the jar given to the job.
              + " --conf spark.plugins=io.flightsql.spark.FlightSqlPlugin"
              + " pyspark-shell");
      ExternalCommand.Result job =
          ExternalCommand.run(
              "python etl_job.py",
              List.of(
                  venv.python().toString(),
                  examples.resolve("etl_job.py").toString(),
                  "--master",
                  master,
                  "--uri",
                  server.uri(),
                  "--partitions",
                  "4"),
              environment,
              dir.resolve("etl-job.log"),
              Duration.ofMinutes(6));

      String shown =
          "job output ("
              + job.log()
              + "):\n"
              + job.tail(60)
              + "\nworker log: "
              + workerProcess.log();
      assertThat(job.exitCode()).as(shown).isZero();
      List<List<String>> expected = duckDbAnswer(server);
      assertThat(expected).as("DuckDB's own answer").hasSizeGreaterThan(5);
      assertThat(job.output()).as(shown).contains("wrote " + expected.size() + " rows");
      assertThat(writtenTable(server)).as(shown).containsExactlyElementsOf(expected);

      List<Path> executorLogs = executorLogs(work);
      assertThat(executorLogs).as("executor logs under " + work).hasSize(2);
      List<String> readers = new ArrayList<>();
      for (Path log : executorLogs) {
        String text = Files.readString(log, StandardCharsets.UTF_8);
        if (text.contains("Opening a gRPC channel") && text.contains("Finished task")) {
          readers.add(log.toString());
        }
      }
      assertThat(readers)
          .as("executors whose log shows the connector's channel and finished tasks")
          .isNotEmpty();
      assertThat(job.output())
          .as("the driver ran no task itself (" + job.log() + ")")
          .doesNotContain("Running task");
    }
  }

  /** The job's query, computed by DuckDB: carrier, flag, revenue, lines, slowest days. */
  private static List<List<String>> duckDbAnswer(DuckDbFlightSqlServer server) throws Exception {
    return query(
        server,
        "SELECT s.carrier, l.l_returnflag, SUM(l.l_extendedprice * (1 - l.l_discount)),"
            + " COUNT(*), MAX(s.days) FROM lineitem l JOIN shipmodes s USING (l_shipmode)"
            + " WHERE l.l_shipdate < DATE '1998-09-01' GROUP BY s.carrier, l.l_returnflag"
            + " ORDER BY s.carrier, l.l_returnflag");
  }

  private static List<List<String>> writtenTable(DuckDbFlightSqlServer server) throws Exception {
    return query(
        server,
        "SELECT carrier, l_returnflag, revenue, line_count, max_days FROM carrier_revenue"
            + " ORDER BY carrier, l_returnflag");
  }

  /** Rows as texts; numbers without trailing zeros, so DECIMAL scales need not agree. */
  private static List<List<String>> query(DuckDbFlightSqlServer server, String sql)
      throws Exception {
    List<List<String>> rows = new ArrayList<>();
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          Object value = result.getObject(i);
          row.add(
              value == null
                  ? "NULL"
                  : value instanceof Number
                      ? new BigDecimal(value.toString()).stripTrailingZeros().toPlainString()
                      : value.toString());
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** The stderr of each executor: {@code work/<application>/<executor>/stderr}. */
  private static List<Path> executorLogs(Path work) throws IOException {
    try (Stream<Path> files = Files.walk(work, 3)) {
      return files.filter(path -> path.getFileName().toString().equals("stderr")).sorted().toList();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(path);
      }
    }
  }

  /** A Spark daemon (master or worker) run through {@code spark-class}, ended with its children. */
  private static final class Daemon implements AutoCloseable {
    private final Process process;
    private final Path log;

    private Daemon(Process process, Path log) {
      this.process = process;
      this.log = log;
    }

    static Daemon start(PythonVirtualenv venv, Path log, String mainClass, String... args)
        throws IOException {
      List<String> command = new ArrayList<>();
      command.add(venv.bin("spark-class").toString());
      command.add(mainClass);
      command.addAll(List.of(args));
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      builder.environment().putAll(venv.sparkEnvironment());
      System.out.printf("[cluster] %s (log: %s)%n", String.join(" ", command), log);
      return new Daemon(builder.start(), log);
    }

    Path log() {
      return log;
    }

    /** Waits, at most {@code timeout}, for the daemon to print {@code text}. */
    void awaitLog(String text, Duration timeout) throws IOException, InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        if (Files.readString(log, StandardCharsets.UTF_8).contains(text)) {
          return;
        }
        if (!process.isAlive()) {
          break;
        }
        Thread.sleep(250);
      }
      throw new AssertionError(
          "'"
              + text
              + "' not in "
              + log
              + " within "
              + timeout.toSeconds()
              + " s (process alive: "
              + process.isAlive()
              + "):\n"
              + ExternalCommand.tail(Files.readString(log, StandardCharsets.UTF_8), 30));
    }

    @Override
    public void close() {
      ExternalCommand.destroyTree(process.toHandle());
    }
  }
}
