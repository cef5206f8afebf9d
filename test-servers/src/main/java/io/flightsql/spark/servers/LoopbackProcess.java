package io.flightsql.spark.servers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * A server program started as {@code <binary> -host 127.0.0.1 -port N} on a free port, as the
 * arrow-go SQLite server and Toxiproxy are: its output is appended to a log, and it counts as
 * started once its port accepts connections. A program that exits while starting (another process
 * took the port between picking and binding) is tried again on another port.
 */
public record LoopbackProcess(Process process, int port) {

  /**
   * Starts {@code binary}, trying up to {@code attempts} free ports, each for up to {@code wait}.
   */
  public static LoopbackProcess start(
      String name, Path binary, Path log, int attempts, Duration wait) throws Exception {
    return start(
        name,
        port ->
            List.of(binary.toString(), "-host", FreePorts.LOOPBACK, "-port", String.valueOf(port)),
        log,
        attempts,
        wait);
  }

  /**
   * Starts the program {@code command} gives for a port, trying up to {@code attempts} free ports,
   * each for up to {@code wait}.
   */
  public static LoopbackProcess start(
      String name, IntFunction<List<String>> command, Path log, int attempts, Duration wait)
      throws Exception {
    return start(name, command, log, attempts, wait, Map.of());
  }

  /**
   * As {@link #start(String, IntFunction, Path, int, Duration)}, with these environment variables.
   */
  public static LoopbackProcess start(
      String name,
      IntFunction<List<String>> command,
      Path log,
      int attempts,
      Duration wait,
      Map<String, String> environment)
      throws Exception {
    for (int attempt = 1; attempt <= attempts; attempt++) {
      LoopbackProcess started = tryPort(name, command, FreePorts.pick(), log, wait, environment);
      if (started != null) {
        return started;
      }
    }
    throw new IllegalStateException(
        name + " did not start after " + attempts + " attempts; see " + log);
  }

  /** The started program, or null if it exited while starting. */
  private static LoopbackProcess tryPort(
      String name,
      IntFunction<List<String>> command,
      int port,
      Path log,
      Duration wait,
      Map<String, String> environment)
      throws Exception {
    List<String> args = command.apply(port);
    Files.writeString(
        log,
        "--- " + String.join(" ", args) + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    ProcessBuilder builder = new ProcessBuilder(args);
    builder.environment().putAll(environment);
    Process started =
        builder
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() < deadline) {
      if (!started.isAlive()) {
        System.out.printf(
            "%s exited with %d while starting on port %d:%n%s%n",
            name, started.exitValue(), port, ExternalCommand.tail(Files.readString(log), 10));
        return null;
      }
      if (FreePorts.accepts(port)) {
        return new LoopbackProcess(started, port);
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    ExternalCommand.destroyTree(started.toHandle());
    throw new IllegalStateException(
        name
            + " did not accept connections on port "
            + port
            + " within "
            + wait.toSeconds()
            + " s; see "
            + log);
  }
}
