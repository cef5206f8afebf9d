package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.ExternalCommand;
import io.flightsql.spark.servers.FreePorts;
import io.flightsql.spark.servers.LoopbackProcess;
import io.flightsql.spark.servers.PythonVirtualenv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The connector's SQL catalog from Spark's SQL entry points, as pip's PySpark ({@link
 * PySparkReleases#NEWEST}) ships them, with the shaded jar in {@code --jars} and the catalog in
 * {@code --conf}: the {@code spark-sql -e} command line, and the Thrift JDBC/ODBC server ({@code
 * HiveThriftServer2}, which pip's PySpark carries with Hive's JDBC driver) queried by {@code
 * beeline}. Each shows the server's tables, answers an aggregate as DuckDB does, and creates a
 * table with CREATE TABLE AS SELECT. Both run at the same time against one embedded DuckDB server.
 */
@Execution(ExecutionMode.CONCURRENT)
class SqlEntryPointsIT {
  private static final long LINEITEM_ROWS = 5_000;
  private static final String NAMESPACE = "flight.memory.main";
  private static final String AGGREGATE =
      "SELECT l_returnflag, count(*) FROM "
          + NAMESPACE
          + ".lineitem GROUP BY l_returnflag ORDER BY l_returnflag";

  private static DuckDbFlightSqlServer server;
  private static BackgroundRun cli;
  private static BackgroundRun thrift;

  @BeforeAll
  static void runBoth() throws Exception {
    server =
        DuckDbFlightSqlServer.builder()
            .host(FreePorts.LOOPBACK)
            .port(0)
            .lineitemRows(LINEITEM_ROWS)
            .start();
    cli = BackgroundRun.start("sparkSql", SqlEntryPointsIT::sparkSql);
    thrift = BackgroundRun.start("thriftAndBeeline", SqlEntryPointsIT::thriftAndBeeline);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void sparkSqlCommandLineQueriesTheCatalog() throws Exception {
    ExternalCommand.Result run = cli.await();
    String shown = "spark-sql output (" + run.log() + "):\n" + run.tail(60);
    assertThat(run.exitCode()).as(shown).isZero();
    List<String> lines = List.of(run.output().split("\\R"));
    assertThat(lines).as(shown).contains("lineitem");
    assertThat(lines).as(shown).containsSubsequence(duckDbAggregate("\t"));
    assertThat(query("SELECT count(*) FROM sql_cli_ctas")).containsExactly("7");
  }

  @Test
  void thriftServerAnswersBeeline() throws Exception {
    ExternalCommand.Result run = thrift.await();
    String shown = "beeline output (" + run.log() + "):\n" + run.tail(60);
    assertThat(run.exitCode()).as(shown).isZero();
    // beeline echoes its prompt before each statement's first row.
    List<String> lines =
        Stream.of(run.output().split("\\R"))
            .map(line -> line.replaceFirst("^\\d+: jdbc:hive2://\\S*> ", ""))
            .toList();
    assertThat(lines).as(shown).contains("memory.main,lineitem,false");
    assertThat(lines).as(shown).containsSubsequence(duckDbAggregate(","));
    assertThat(query("SELECT count(*) FROM sql_thrift_ctas")).containsExactly("7");
  }

  /** {@code spark-sql -e} with three statements, in a JVM of its own. */
  private static ExternalCommand.Result sparkSql() throws Exception {
    PythonVirtualenv venv = PythonVirtualenv.pyspark(PySparkReleases.NEWEST);
    List<String> command = new ArrayList<>();
    command.add(venv.bin("spark-sql").toString());
    command.addAll(sparkOptions("sql-cli"));
    command.add("-e");
    command.add(
        "SHOW TABLES IN "
            + NAMESPACE
            + "; "
            + AGGREGATE
            + "; CREATE TABLE "
            + NAMESPACE
            + ".sql_cli_ctas AS SELECT DISTINCT l_shipmode FROM "
            + NAMESPACE
            + ".lineitem;");
    return ExternalCommand.run(
        "spark-sql",
        command,
        venv.sparkEnvironment(),
        TestPaths.buildDir().resolve("spark-sql-cli.log"),
        Duration.ofMinutes(10));
  }

  /** The Thrift server on a free port, and beeline's statements to it over JDBC. */
  private static ExternalCommand.Result thriftAndBeeline() throws Exception {
    PythonVirtualenv venv = PythonVirtualenv.pyspark(PySparkReleases.NEWEST);
    List<String> options = sparkOptions("sql-thrift");
    LoopbackProcess thriftServer =
        LoopbackProcess.start(
            "Spark Thrift server",
            port -> {
              List<String> command = new ArrayList<>();
              command.add(venv.bin("spark-submit").toString());
              command.addAll(options);
              command.add("--class");
              command.add("org.apache.spark.sql.hive.thriftserver.HiveThriftServer2");
              command.add("spark-internal");
              command.add("--hiveconf");
              command.add("hive.server2.thrift.bind.host=" + FreePorts.LOOPBACK);
              command.add("--hiveconf");
              command.add("hive.server2.thrift.port=" + port);
              return command;
            },
            TestPaths.buildDir().resolve("spark-thrift-server.log"),
            2,
            Duration.ofMinutes(5),
            venv.sparkEnvironment());
    try {
      return ExternalCommand.run(
          "beeline",
          List.of(
              venv.bin("beeline").toString(),
              "-u",
              "jdbc:hive2://" + FreePorts.LOOPBACK + ":" + thriftServer.port() + "/default",
              "-n",
              "flightsql",
              "-p",
              "unused",
              "--outputformat=csv2",
              "--showHeader=false",
              "--silent=true",
              "-e",
              "SHOW TABLES IN " + NAMESPACE,
              "-e",
              AGGREGATE,
              "-e",
              "CREATE TABLE "
                  + NAMESPACE
                  + ".sql_thrift_ctas AS SELECT DISTINCT l_shipmode FROM "
                  + NAMESPACE
                  + ".lineitem"),
          venv.sparkEnvironment(),
          TestPaths.buildDir().resolve("spark-beeline.log"),
          Duration.ofMinutes(10));
    } finally {
      ExternalCommand.destroyTree(thriftServer.process().toHandle());
    }
  }

  /**
   * The jar, the catalog, and a Hive metastore and warehouse of the run's own under {@code
   * target/<name>} (both programs run Hive's embedded Derby metastore, which one process at a time
   * may open).
   */
  private static List<String> sparkOptions(String name) throws Exception {
    Path dir = TestPaths.buildDir().resolve(name);
    Files.createDirectories(dir);
    return List.of(
        "--master",
        "local[2]",
        "--jars",
        TestPaths.shadedJar().toString(),
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.catalog.flight=io.flightsql.spark.FlightSqlCatalog",
        "--conf",
        "spark.sql.catalog.flight.uri=" + server.uri(),
        "--conf",
        "spark.sql.warehouse.dir=" + dir.resolve("warehouse"),
        "--conf",
        "spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName="
            + dir.resolve("metastore")
            + ";create=true",
        "--conf",
        "spark.driver.extraJavaOptions=-Dderby.stream.error.file=" + dir.resolve("derby.log"));
  }

  /** DuckDB's own answer to {@link #AGGREGATE}, each row's cells joined by {@code separator}. */
  private static List<String> duckDbAggregate(String separator) throws Exception {
    List<String> rows = new ArrayList<>();
    for (String row :
        query(
            "SELECT l_returnflag || '|' || count(*) FROM lineitem GROUP BY l_returnflag ORDER BY"
                + " l_returnflag")) {
      rows.add(row.replace("|", separator));
    }
    assertThat(rows).hasSizeGreaterThan(1);
    return rows;
  }

  private static List<String> query(String sql) throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      while (result.next()) {
        rows.add(result.getString(1));
      }
    }
    return rows;
  }
}
