package io.flightsql.spark.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs Deephaven's server (pip's {@code deephaven-server}: a Java engine with Calcite SQL behind
 * Flight SQL) as a child process for one test class, on 127.0.0.1 and a free port, with a 1 GB heap
 * and anonymous authentication: every call needs {@code authorization: Anonymous}. The script
 * {@code src/test/python/start_deephaven.py} makes the contract tables as Python globals, which
 * Deephaven's SQL sees as tables. The virtualenv is made once in {@code
 * ~/.cache/spark-flightsql/deephaven-42.7}; without {@code python3} the class is skipped, except in
 * CI, where it fails ({@link RequiredTool}). The server's output goes to {@code
 * target/deephaven-server.log}.
 */
final class DeephavenServerExtension implements BeforeAllCallback, AfterAllCallback {
  static final String VERSION = "42.7";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private Process process;
  private int port;

  /** {@code grpc://127.0.0.1:<port>} of the running server. */
  String uri() {
    if (process == null) {
      throw new IllegalStateException("Deephaven's server is not running");
    }
    return "grpc://" + FreePorts.LOOPBACK + ":" + port;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    PythonVirtualenv venv =
        PythonVirtualenv.of("deephaven-" + VERSION, List.of("deephaven-server==" + VERSION));
    Path script =
        TestPaths.repoRoot().resolve("integration-tests/src/test/python/start_deephaven.py");
    Path log = TestPaths.buildDir().resolve("deephaven-server.log");
    Files.deleteIfExists(log);
    String javaHome = Path.of(System.getProperty("java.home")).toString();
    LoopbackProcess started =
        LoopbackProcess.start(
            "Deephaven's server",
            p -> List.of(venv.python().toString(), script.toString(), String.valueOf(p)),
            log,
            1,
            START_TIMEOUT,
            java.util.Map.of("JAVA_HOME", javaHome));
    process = started.process();
    port = started.port();
    // The port opens before the script has made its tables.
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!Files.readString(log).contains("READY")) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        afterAll(context);
        throw new IllegalStateException(
            "Deephaven's server did not make its tables; see "
                + log
                + ":\n"
                + ExternalCommand.tail(Files.readString(log), 20));
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (process != null) {
      ExternalCommand.destroyTree(process.toHandle());
      process = null;
    }
  }
}
