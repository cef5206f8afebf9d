package io.flightsql.spark.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;

/**
 * arrow-go's SQLite Flight SQL example ({@code sqlite_flightsql_server}) as a child process on
 * 127.0.0.1 and a free port; its database is SQLite in memory, gone when the process ends.
 *
 * <p>The binary is taken from {@code $FLIGHTSQL_GO_SERVER} if set, else from {@code
 * ~/.cache/spark-flightsql/gobin/}, where it is built with {@code go install} the first time (about
 * two minutes); without a {@code go} command that fails or skips as {@link RequiredTool} says.
 */
public final class GoSqliteServer implements AutoCloseable {
  public static final String MODULE = "github.com/apache/arrow-go/v18";
  public static final String VERSION = "v18.8.0";
  public static final String PACKAGE =
      MODULE + "/arrow/flight/flightsql/example/cmd/sqlite_flightsql_server@" + VERSION;
  public static final String BINARY = "sqlite_flightsql_server";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final int START_ATTEMPTS = 3;

  private final Process process;
  private final int port;

  private GoSqliteServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts the server; its output goes to {@code log}. */
  public static GoSqliteServer start(Path log) throws Exception {
    LoopbackProcess started =
        LoopbackProcess.start(BINARY, binary(), log, START_ATTEMPTS, START_TIMEOUT);
    return new GoSqliteServer(started.process(), started.port());
  }

  /** {@code grpc://127.0.0.1:<port>}. */
  public String uri() {
    return "grpc://" + FreePorts.LOOPBACK + ":" + port;
  }

  public int port() {
    return port;
  }

  /** Ends the server process. */
  @Override
  public void close() {
    ExternalCommand.destroyTree(process.toHandle());
  }

  /** Whether the binary is configured, cached, or can be built here (there is a {@code go}). */
  public static boolean available() {
    return configuredBinary() != null
        || Files.isExecutable(cachedBinary())
        || RequiredTool.GO.find() != null;
  }

  /** What Go is needed for, for the messages of a missing Go. */
  public static String buildPurpose() {
    return "builds arrow-go's SQLite Flight SQL server ("
        + PACKAGE
        + ") into "
        + cachedBinary().getParent();
  }

  public static Path cachedBinary() {
    return ServerPaths.userCache().resolve("gobin").resolve(BINARY);
  }

  /** The server binary: configured, cached, or built now with {@code go install}. */
  public static Path binary() throws IOException, InterruptedException {
    Path configured = configuredBinary();
    if (configured != null) {
      return configured;
    }
    return GoInstall.cachedOrBuilt(
        PACKAGE, cachedBinary(), buildPurpose(), "go-install.log", "about two minutes");
  }

  private static Path configuredBinary() {
    String configured = System.getenv("FLIGHTSQL_GO_SERVER");
    if (configured == null || configured.isBlank()) {
      return null;
    }
    Path path = Paths.get(configured);
    if (!Files.isExecutable(path)) {
      throw new IllegalStateException(
          "FLIGHTSQL_GO_SERVER names " + path + ", which is not an executable file");
    }
    return path;
  }
}
