package io.flightsql.spark.servers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Sail's Flight SQL server (LakeSail's Rust/DataFusion engine with Spark SQL's dialect, from pip's
 * {@code pysail}) as a child process on 127.0.0.1 and a free port, with its tables under a working
 * directory that is emptied first. The virtualenv is made once in {@code
 * ~/.cache/spark-flightsql/sail-0.7.2} ({@link PythonVirtualenv}).
 */
public final class SailServer implements AutoCloseable {
  public static final String VERSION = "0.7.2";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final int START_ATTEMPTS = 3;

  private final Process process;
  private final int port;

  private SailServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts the server with its tables under {@code work}; its output goes to {@code log}. */
  public static SailServer start(Path work, Path log) throws Exception {
    PythonVirtualenv venv = PythonVirtualenv.of("sail-" + VERSION, List.of("pysail==" + VERSION));
    Path sail = venv.bin("sail");
    ServerPaths.deleteTree(work);
    Files.createDirectories(work);
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
    return new SailServer(started.process(), started.port());
  }

  /** {@code grpc://127.0.0.1:<port>}. */
  public String uri() {
    return "grpc://" + FreePorts.LOOPBACK + ":" + port;
  }

  /** Ends the server process. */
  @Override
  public void close() {
    ExternalCommand.destroyTree(process.toHandle());
  }
}
