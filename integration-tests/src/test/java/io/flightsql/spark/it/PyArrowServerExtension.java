package io.flightsql.spark.it;

import io.flightsql.spark.servers.ExternalCommand;
import io.flightsql.spark.servers.FreePorts;
import io.flightsql.spark.servers.LoopbackProcess;
import io.flightsql.spark.servers.PythonVirtualenv;
import io.flightsql.spark.servers.RequiredTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs {@code src/test/python/compressing_flight_sql_server.py}, a Flight SQL server on pyarrow
 * (Arrow C++) whose query streams compress their record batches, as a child process for one test
 * class, on 127.0.0.1 and a free port. The virtualenv, with pip's {@code pyarrow} alone, is made
 * once in {@code ~/.cache/spark-flightsql/pyarrow-26.0.1} ({@link PythonVirtualenv}); without
 * {@code python3} the class is skipped, except in CI, where it fails ({@link RequiredTool}). The
 * server's output, one line per call, goes to {@code target/pyarrow-flight-server.log}.
 */
final class PyArrowServerExtension implements BeforeAllCallback, AfterAllCallback {
  static final String VERSION = "26.0.1";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final long rows;
  private Process process;
  private int port;

  /** A server whose tables have {@code rows} rows each. */
  PyArrowServerExtension(long rows) {
    this.rows = rows;
  }

  /** {@code grpc://127.0.0.1:<port>} of the running server. */
  String uri() {
    return "grpc://" + FreePorts.LOOPBACK + ":" + port();
  }

  int port() {
    if (process == null) {
      throw new IllegalStateException("The pyarrow Flight SQL server is not running");
    }
    return port;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    PythonVirtualenv venv =
        PythonVirtualenv.of("pyarrow-" + VERSION, List.of("pyarrow==" + VERSION));
    Path script =
        TestPaths.repoRoot()
            .resolve("integration-tests/src/test/python/compressing_flight_sql_server.py");
    Path log = TestPaths.buildDir().resolve("pyarrow-flight-server.log");
    Files.deleteIfExists(log);
    LoopbackProcess started =
        LoopbackProcess.start(
            "The pyarrow Flight SQL server",
            p ->
                List.of(
                    venv.python().toString(),
                    script.toString(),
                    String.valueOf(p),
                    String.valueOf(rows)),
            log,
            3,
            START_TIMEOUT);
    process = started.process();
    port = started.port();
    // The port opens just before the line is printed; wait for it, so a failed start says why.
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!Files.readString(log).contains("READY")) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        afterAll(context);
        throw new IllegalStateException(
            "The pyarrow Flight SQL server did not start; see "
                + log
                + ":\n"
                + ExternalCommand.tail(Files.readString(log), 20));
      }
      TimeUnit.MILLISECONDS.sleep(50);
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
