package io.flightsql.spark.it.fuzz;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.DeephavenServer;
import io.flightsql.spark.servers.DerbyExampleServer;
import io.flightsql.spark.servers.FreePorts;
import io.flightsql.spark.servers.GoSqliteServer;
import io.flightsql.spark.servers.SailServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * Runs the differential fuzzer for longer than the tests do, against servers it starts itself:
 *
 * <pre>
 * mvn -pl integration-tests exec:exec@fuzz -Dfuzz.args="--server derby --seed 7 --cases 500"
 * </pre>
 *
 * <p>Options: {@code --server} duckdb, derby, sqlite, sail, deephaven or all (default all); {@code
 * --seed} (default 1) and {@code --seeds} (how many seeds from it, default 1); {@code --cases} per
 * seed and server (default 200); {@code --exclude} known bugs to stay away from (names of {@link
 * KnownBug}, comma-separated; default none). Prints each failure's smallest case, then a summary.
 * Exits with 1 when anything failed.
 */
public final class FuzzMain {
  private FuzzMain() {}

  public static void main(String[] args) {
    try {
      System.exit(run(args));
    } catch (Throwable e) {
      // A server that did not start leaves Spark's and the servers' threads behind: exit anyway.
      e.printStackTrace();
      System.exit(2);
    }
  }

  private static int run(String[] args) throws Exception {
    Map<String, String> options = options(args);
    long seed = Long.parseLong(options.getOrDefault("--seed", "1"));
    int seeds = Integer.parseInt(options.getOrDefault("--seeds", "1"));
    int cases = Integer.parseInt(options.getOrDefault("--cases", "200"));
    Set<KnownBug> excluded = KnownBug.parse(options.get("--exclude"));
    String server = options.getOrDefault("--server", "all");
    List<String> servers =
        server.equals("all")
            ? List.of("duckdb", "derby", "sqlite", "sail", "deephaven")
            : List.of(server.split(","));
    Path work = Path.of(System.getProperty("flightsql.buildDir", "target")).toAbsolutePath();
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("FuzzMain")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.driver.host", FreePorts.LOOPBACK)
            .config("spark.driver.bindAddress", FreePorts.LOOPBACK)
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.datetime.java8API.enabled", "true")
            .getOrCreate();
    // The failures the fuzzer provokes are its output, not Spark's log of them.
    spark.sparkContext().setLogLevel("OFF");
    List<String> summaries = new ArrayList<>();
    int failures = 0;
    try {
      for (String id : servers) {
        try (Running running = start(FuzzDialect.of(id), work)) {
          for (int i = 0; i < seeds; i++) {
            DifferentialFuzzer.Report report =
                new DifferentialFuzzer(spark, running.target(), excluded, 60, System.out)
                    .run(seed + i, cases);
            summaries.add(report.summary());
            failures += report.failures().size();
          }
        }
      }
    } finally {
      spark.stop();
    }
    System.out.println("=== Summary");
    summaries.forEach(System.out::println);
    return failures == 0 ? 0 : 1;
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new java.util.HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "Invalid argument '"
                + args[i]
                + "': expected --server, --seed, --seeds, --cases or"
                + " --exclude, each followed by a value");
      }
      options.put(args[i], args[++i]);
    }
    return options;
  }

  /** A started server and how the fuzzer reaches it. */
  private record Running(FuzzTarget target, AutoCloseable server) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      server.close();
    }
  }

  private static Running start(FuzzDialect dialect, Path work) throws Exception {
    switch (dialect) {
      case DUCKDB:
        DuckDbFlightSqlServer duckdb =
            DuckDbFlightSqlServer.builder().host(FreePorts.LOOPBACK).port(0).start();
        return running("DuckDB (embedded)", duckdb.uri(), Map.of(), dialect, duckdb, false);
      case DERBY:
        DerbyExampleServer derby = DerbyExampleServer.start("derby-fuzz");
        return running("Derby (FlightSqlExample)", derby.uri(), Map.of(), dialect, derby, false);
      case SQLITE:
        GoSqliteServer sqlite = GoSqliteServer.start(work.resolve("sqlite-fuzz.log"));
        return running("SQLite (arrow-go)", sqlite.uri(), Map.of(), dialect, sqlite, false);
      case SAIL:
        SailServer sail =
            SailServer.start(work.resolve("sail-fuzz"), work.resolve("sail-fuzz.log"));
        return running("Sail", sail.uri(), Map.of(), dialect, sail, true);
      default:
        DeephavenServer deephaven = DeephavenServer.start(work.resolve("deephaven-fuzz.log"));
        return running(
            "Deephaven",
            deephaven.uri(),
            Map.of("header.authorization", "Anonymous"),
            dialect,
            deephaven,
            false);
    }
  }

  private static Running running(
      String name,
      String uri,
      Map<String, String> options,
      FuzzDialect dialect,
      AutoCloseable server,
      boolean updatesAsQueries) {
    FuzzTarget target =
        new FuzzTarget(
            name,
            uri,
            options,
            sql -> {
              if (updatesAsQueries) {
                FuzzStatements.query(uri, sql);
              } else {
                FuzzStatements.execute(uri, sql);
              }
            },
            dialect);
    return new Running(target, server);
  }
}
