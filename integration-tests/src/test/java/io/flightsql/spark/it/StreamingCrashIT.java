package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.FreePorts;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A streaming copy from one table of a DuckDB Flight SQL server to another, killed with SIGKILL
 * mid-stream while the source grows, twice, and started again from its checkpoint each time; then
 * run with {@code Trigger.AvailableNow} once the source stops growing. The copy must equal the
 * source: nothing lost, nothing twice. The copy runs as a program of its own ({@link
 * StreamingCopyApp}, a JVM on this test's class path with the shaded connector), so the kill takes
 * its driver and executors with it, as a crashed driver would.
 *
 * <p>The first kill comes while an epoch's rows are staged on the server but not committed (its
 * staging tables exist): the restart must run that epoch again, once, and drop what the killed run
 * left. The second comes the moment the sink's mark shows an epoch committed, which is often before
 * Spark has written that epoch's commit to the checkpoint: the restart then runs the epoch again,
 * and its mark must make it write nothing. Each kill's state (the checkpoint's last offsets and
 * commits, the mark, the staging tables) is printed, and the test waits for each of these events by
 * watching the server, never for a time.
 */
class StreamingCrashIT {
  private static final String SOURCE = "crash_source";
  private static final String COPY = "crash_copy";

  /** How long an event may take to come before the test fails: a bound on a hang, no timing. */
  private static final Duration BOUND = Duration.ofMinutes(5);

  @Test
  void aCopyKilledTwiceMidStreamEqualsItsSource() throws Exception {
    Path dir = TestPaths.buildDir().resolve("streaming-crash");
    TestPaths.deleteTree(dir);
    Files.createDirectories(dir);
    Path checkpoint = dir.resolve("checkpoint");
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .host(FreePorts.LOOPBACK)
                .port(0)
                .lineitemRows(0)
                .start();
        Producer producer = new Producer(server)) {
      server.execute(
          "CREATE TABLE "
              + SOURCE
              + " AS SELECT i AS id, 'row ' || i AS v FROM range(1, 2001) t(i)");
      producer.start();

      // Run 1, killed while an epoch's rows are staged and not committed.
      Process first = start(server, checkpoint, dir.resolve("run-1.log"), false);
      awaitEvent("two epochs committed by run 1", () -> mark(server) >= 1, first);
      // Staging tables of the epoch the offsets log has last, whose mark is not there: its tasks
      // are writing, and its commit has not begun.
      awaitEvent(
          "an epoch's rows staged by run 1, its commit not begun",
          () ->
              stagingTables(server) > 0
                  && server.openTransactions() == 0
                  && mark(server) < last(checkpoint.resolve("offsets")),
          first);
      String crash1 = kill(first, server, checkpoint);
      System.out.println("Crash 1 (rows staged): " + crash1);

      // Run 2, killed the moment the sink's mark shows an epoch committed.
      long before = mark(server);
      Process second = start(server, checkpoint, dir.resolve("run-2.log"), false);
      awaitEvent("two epochs committed by run 2", () -> mark(server) >= before + 2, second);
      long seen = mark(server);
      awaitEvent("an epoch committed by run 2", () -> mark(server) > seen, second);
      String crash2 = kill(second, server, checkpoint);
      long killedAt = mark(server);
      boolean commitLost =
          !Files.exists(checkpoint.resolve("commits").resolve(Long.toString(killedAt)));
      System.out.println(
          "Crash 2 (epoch committed by the sink): "
              + crash2
              + (commitLost
                  ? "; epoch " + killedAt + " was committed by the sink, not in the checkpoint"
                  : "; the checkpoint had recorded epoch " + killedAt + " too"));

      producer.stop();
      Process last = start(server, checkpoint, dir.resolve("run-3.log"), true);
      assertThat(last.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS))
          .as("the AvailableNow run ends by itself; see %s", dir.resolve("run-3.log"))
          .isTrue();
      assertThat(last.exitValue()).as("exit code; see %s", dir.resolve("run-3.log")).isZero();
      String finalLog = Files.readString(dir.resolve("run-3.log"));
      if (commitLost) {
        assertThat(finalLog)
            .as("the epoch the sink committed before the kill is run again and writes nothing")
            .contains("Epoch " + killedAt + " of streaming query")
            .contains(COPY + "\" before")
            .contains("it writes nothing");
      }

      System.out.printf(
          "Streaming copy: %d source rows after %d producer inserts; copy %d rows%n",
          count(server, "SELECT count(*) FROM " + SOURCE),
          producer.inserts(),
          count(server, "SELECT count(*) FROM " + COPY));
      assertThat(count(server, "SELECT count(*) FROM " + COPY))
          .isEqualTo(count(server, "SELECT count(*) FROM " + SOURCE));
      assertThat(
              count(
                  server,
                  "SELECT count(*) FROM (SELECT id, v FROM "
                      + SOURCE
                      + " EXCEPT ALL SELECT id, v FROM "
                      + COPY
                      + ")"))
          .as("rows of the source missing from the copy")
          .isZero();
      assertThat(
              count(
                  server,
                  "SELECT count(*) FROM (SELECT id, v FROM "
                      + COPY
                      + " EXCEPT ALL SELECT id, v FROM "
                      + SOURCE
                      + ")"))
          .as("rows of the copy that are not the source's, or are there twice")
          .isZero();
      assertThat(stagingTables(server)).as("staging tables left").isZero();
    }
  }

  /** Starts the copy program, its output in {@code log}. */
  private static Process start(
      DuckDbFlightSqlServer server, Path checkpoint, Path log, boolean availableNow)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("-Djdk.reflect")) {
        command.add(argument);
      }
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(StreamingCopyApp.class.getName());
    command.addAll(
        List.of(
            "--uri",
            server.uri(),
            "--source",
            SOURCE,
            "--sink",
            COPY,
            "--offset-column",
            "id",
            "--checkpoint",
            checkpoint.toString(),
            "--max-rows-per-trigger",
            // The last run reads the rest at once.
            availableNow ? "1000000" : "700"));
    if (availableNow) {
      command.add("--available-now");
    }
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
    builder.environment().put("SPARK_LOCAL_IP", FreePorts.LOOPBACK);
    return builder.start();
  }

  /**
   * Waits until {@code event} holds, watching the server; fails if the program exits first or the
   * event has not come within {@link #BOUND}.
   */
  private static void awaitEvent(String what, BooleanSupplier event, Process program)
      throws InterruptedException {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (!event.getAsBoolean()) {
      assertThat(program.isAlive()).as("the copy program ended before: %s", what).isTrue();
      assertThat(System.nanoTime()).as("no %s within %s", what, BOUND).isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(2);
    }
  }

  /** SIGKILLs the program and says what it left: the checkpoint's logs, the mark, staging. */
  private static String kill(Process program, DuckDbFlightSqlServer server, Path checkpoint)
      throws InterruptedException {
    program.toHandle().destroyForcibly();
    program.waitFor();
    return "killed with exit code "
        + program.exitValue()
        + "; checkpoint offsets up to batch "
        + last(checkpoint.resolve("offsets"))
        + ", commits up to batch "
        + last(checkpoint.resolve("commits"))
        + "; the sink's mark at epoch "
        + mark(server)
        + "; "
        + stagingTables(server)
        + " staging table(s) and "
        + server.openTransactions()
        + " open transaction(s) left";
  }

  private static long last(Path log) {
    try (Stream<Path> files = Files.list(log)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(name -> name.matches("\\d+"))
          .mapToLong(Long::parseLong)
          .max()
          .orElse(-1);
    } catch (IOException e) {
      return -1;
    }
  }

  /** The last epoch the sink's mark shows committed, -1 before the first. */
  private static long mark(DuckDbFlightSqlServer server) {
    try {
      return count(server, "SELECT coalesce(max(epoch_id), -1) FROM flightsql_stream_commits");
    } catch (SQLException e) {
      // No marker table yet: no epoch committed.
      return -1;
    }
  }

  private static long stagingTables(DuckDbFlightSqlServer server) {
    try {
      return count(
          server,
          "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE '"
              + COPY
              + "\\_flightsql\\_%' ESCAPE '\\'");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long count(DuckDbFlightSqlServer server, String sql) throws SQLException {
    return DuckDbQueries.single(server, sql);
  }

  /** Adds rows to the source, ten at a time in one statement, with ids that only grow. */
  private static final class Producer implements AutoCloseable {
    private final DuckDbFlightSqlServer server;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong inserts = new AtomicLong();
    private Thread thread;

    Producer(DuckDbFlightSqlServer server) {
      this.server = server;
    }

    void start() {
      running.set(true);
      thread =
          new Thread(
              () -> {
                long next = 2001;
                try (Connection connection = server.newConnection();
                    Statement statement = connection.createStatement()) {
                  while (running.get()) {
                    statement.execute(
                        "INSERT INTO "
                            + SOURCE
                            + " SELECT i, 'row ' || i FROM range("
                            + next
                            + ", "
                            + (next + 10)
                            + ") t(i)");
                    next += 10;
                    inserts.incrementAndGet();
                    // Pacing, not waiting: about 200 rows a second for the copy to follow.
                    TimeUnit.MILLISECONDS.sleep(50);
                  }
                } catch (SQLException | InterruptedException e) {
                  throw new IllegalStateException("The producer stopped", e);
                }
              },
              "crash-producer");
      thread.start();
    }

    long inserts() {
      return inserts.get();
    }

    /** Stops adding rows, once the current statement is done. */
    void stop() {
      running.set(false);
      if (thread != null) {
        try {
          thread.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void close() {
      stop();
    }
  }
}
