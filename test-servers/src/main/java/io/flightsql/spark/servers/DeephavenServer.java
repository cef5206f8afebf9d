package io.flightsql.spark.servers;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Deephaven's server (pip's {@code deephaven-server}: a Java engine with Calcite SQL behind Flight
 * SQL) as a child process on 127.0.0.1 and a free port, with a 1 GB heap and anonymous
 * authentication: every call needs {@code authorization: Anonymous}. Its start-up script ({@code
 * start_deephaven.py}, a resource of this package) makes the tables of the contract suites and of
 * the benchmarks as Python globals, which Deephaven's SQL sees as tables. The virtualenv is made
 * once in {@code ~/.cache/spark-flightsql/deephaven-42.7}; the server runs on this JVM's Java.
 */
public final class DeephavenServer implements AutoCloseable {
  public static final String VERSION = "42.7";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final Process process;
  private final int port;

  private DeephavenServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts the server and waits until its script has made its tables; output goes to log. */
  public static DeephavenServer start(Path log) throws Exception {
    PythonVirtualenv venv =
        PythonVirtualenv.of("deephaven-" + VERSION, List.of("deephaven-server==" + VERSION));
    Path script = script(log.resolveSibling("start_deephaven.py"));
    Files.deleteIfExists(log);
    String javaHome = Path.of(System.getProperty("java.home")).toString();
    LoopbackProcess started =
        LoopbackProcess.start(
            "Deephaven's server",
            p -> List.of(venv.python().toString(), script.toString(), String.valueOf(p)),
            log,
            1,
            START_TIMEOUT,
            Map.of("JAVA_HOME", javaHome));
    DeephavenServer server = new DeephavenServer(started.process(), started.port());
    // The port opens before the script has made its tables.
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!Files.readString(log).contains("READY")) {
      if (!started.process().isAlive() || System.nanoTime() > deadline) {
        server.close();
        throw new IllegalStateException(
            "Deephaven's server did not make its tables; see "
                + log
                + ":\n"
                + ExternalCommand.tail(Files.readString(log), 20));
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    return server;
  }

  /** {@code grpc://127.0.0.1:<port>}. */
  public String uri() {
    return "grpc://" + FreePorts.LOOPBACK + ":" + port;
  }

  /** Ends the server process and its JVM. */
  @Override
  public void close() {
    ExternalCommand.destroyTree(process.toHandle());
  }

  /** The start-up script, copied out of this jar to {@code target}. */
  private static Path script(Path target) throws IOException {
    try (InputStream in = DeephavenServer.class.getResourceAsStream("start_deephaven.py")) {
      if (in == null) {
        throw new IllegalStateException("start_deephaven.py is missing from the class path");
      }
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
    return target;
  }
}
