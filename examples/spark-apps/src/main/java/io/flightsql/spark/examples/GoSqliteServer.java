package io.flightsql.spark.examples;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * arrow-go's SQLite Flight SQL example ({@code sqlite_flightsql_server}), a server this project did
 * not write, run as a child process on 127.0.0.1 for a benchmark. Its database is SQLite in memory,
 * gone when the process ends.
 *
 * <p>The binary is the one the integration tests use: {@code -Dsqlite.server.binary=...}, else
 * {@code $FLIGHTSQL_GO_SERVER}, else {@code
 * ~/.cache/spark-flightsql/gobin/sqlite_flightsql_server}, which is built there with {@code go
 * install} (about two minutes) when it is missing, exactly as the integration tests build it, so
 * that both measure the same server.
 */
final class GoSqliteServer implements AutoCloseable {
  static final String VERSION = "v18.8.0";
  static final String PACKAGE =
      "github.com/apache/arrow-go/v18/arrow/flight/flightsql/example/cmd/sqlite_flightsql_server@"
          + VERSION;

  private static final String BINARY = "sqlite_flightsql_server";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(15);
  private static final int START_ATTEMPTS = 3;

  private final Process process;
  private final int port;

  private GoSqliteServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * Starts the server on a free port, trying another one if the process exits while starting
   * (another process took the port in between).
   *
   * @param log the file that receives the server's output
   */
  static GoSqliteServer start(Path log) throws IOException, InterruptedException {
    Path binary = binary();
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      int port;
      try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = free.getLocalPort();
      }
      Process process =
          new ProcessBuilder(binary.toString(), "-host", "127.0.0.1", "-port", String.valueOf(port))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (process.isAlive() && !ToxiproxyLink.accepts(port)) {
        if (System.nanoTime() > deadline) {
          process.destroy();
          throw new IllegalStateException(
              BINARY + " did not accept connections within " + START_TIMEOUT + "; see " + log);
        }
        Thread.sleep(50);
      }
      if (process.isAlive()) {
        return new GoSqliteServer(process, port);
      }
    }
    throw new IllegalStateException(
        BINARY + " exited while starting, " + START_ATTEMPTS + " times; see " + log);
  }

  int port() {
    return port;
  }

  /** {@code grpc://127.0.0.1:<port>}, the server without any link in between. */
  String uri() {
    return "grpc://127.0.0.1:" + port;
  }

  /**
   * Stops the server, forcibly after 10 s. An interrupt while waiting is kept as the thread's
   * interrupt status, so that this close throws no InterruptedException.
   */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** The configured binary, or the cached one, built now if it is missing. */
  private static Path binary() throws IOException, InterruptedException {
    String configured =
        System.getProperty("sqlite.server.binary", System.getenv("FLIGHTSQL_GO_SERVER"));
    if (configured != null && !configured.isBlank()) {
      Path path = Path.of(configured);
      if (!Files.isExecutable(path)) {
        throw new IllegalStateException(path + " is not an executable " + BINARY);
      }
      return path;
    }
    Path gobin = Path.of(System.getProperty("user.home"), ".cache", "spark-flightsql", "gobin");
    Path cached = gobin.resolve(BINARY);
    if (Files.isExecutable(cached)) {
      return cached;
    }
    String build = "GOBIN=" + gobin + " go install " + PACKAGE;
    System.out.println("Building " + BINARY + " (about two minutes): " + build);
    Files.createDirectories(gobin);
    ProcessBuilder install = new ProcessBuilder("go", "install", PACKAGE).inheritIO();
    install.environment().put("GOBIN", gobin.toString());
    Process process;
    try {
      process = install.start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "No " + cached + ", and no `go` command to build it with `" + build + "`", e);
    }
    if (!process.waitFor(BUILD_TIMEOUT.toMinutes(), TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("`" + build + "` did not end within " + BUILD_TIMEOUT);
    }
    if (process.exitValue() != 0 || !Files.isExecutable(cached)) {
      throw new IllegalStateException(
          "`"
              + build
              + "` failed with exit code "
              + process.exitValue()
              + "; see its output above");
    }
    return cached;
  }
}
