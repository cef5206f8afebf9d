package io.flightsql.spark.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs Sail's Flight SQL server (LakeSail's Rust/DataFusion engine with Spark SQL's dialect, from
 * pip's {@code pysail}) as a child process for one test class, on 127.0.0.1 and a free port, with
 * its tables under {@code target/sail}. The virtualenv is made once in {@code
 * ~/.cache/spark-flightsql/sail-0.7.2} ({@link PythonVirtualenv}); without {@code python3} the
 * class is skipped, except in CI, where it fails ({@link RequiredTool}). The server's output goes
 * to {@code target/sail-flight-server.log}.
 */
final class SailServerExtension implements BeforeAllCallback, AfterAllCallback {
  static final String VERSION = "0.7.2";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final int START_ATTEMPTS = 3;

  private Process process;
  private int port;

  /** {@code grpc://127.0.0.1:<port>} of the running server. */
  String uri() {
    if (process == null) {
      throw new IllegalStateException("Sail's Flight SQL server is not running");
    }
    return "grpc://" + FreePorts.LOOPBACK + ":" + port;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    PythonVirtualenv venv = PythonVirtualenv.of("sail-" + VERSION, List.of("pysail==" + VERSION));
    Path sail = venv.bin("sail");
    Path work = TestPaths.buildDir().resolve("sail");
    deleteTree(work);
    Files.createDirectories(work);
    Path log = TestPaths.buildDir().resolve("sail-flight-server.log");
    LoopbackProcess started =
        LoopbackProcess.start(
            "Sail's Flight SQL server",
            p ->
                List.of(
                    sail.toString(),
                    "flight",
                    "server",
                    "--ip",
                    FreePorts.LOOPBACK,
                    "--port",
                    String.valueOf(p),
                    "-C",
                    work.toString()),
            log,
            START_ATTEMPTS,
            START_TIMEOUT);
    process = started.process();
    port = started.port();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (process != null) {
      ExternalCommand.destroyTree(process.toHandle());
      process = null;
    }
  }

  private static void deleteTree(Path dir) throws java.io.IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
