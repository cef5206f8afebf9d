package io.flightsql.spark.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs arrow-go's SQLite Flight SQL example ({@code sqlite_flightsql_server}) as a child process
 * for one test class, on 127.0.0.1 and a free port. Register it on a static field with
 * {@code @RegisterExtension}; {@link #uri()} is valid from the class's {@code @BeforeAll} on.
 *
 * <p>The binary is taken from {@code $FLIGHTSQL_GO_SERVER} if set, else from {@code
 * ~/.cache/spark-flightsql/gobin/}, where it is built with {@code go install} the first time (about
 * two minutes). Without a {@code go} command on the PATH the test class is skipped, except in CI
 * ({@code CI=true}), where it fails ({@link RequiredTool}). The server's output goes to {@code
 * target/sqlite-flightsql-server.log}.
 */
final class GoSqliteServerExtension
    implements ExecutionCondition, BeforeAllCallback, AfterAllCallback {
  static final String MODULE = "github.com/apache/arrow-go/v18";
  static final String VERSION = "v18.8.0";
  static final String PACKAGE =
      MODULE + "/arrow/flight/flightsql/example/cmd/sqlite_flightsql_server@" + VERSION;
  static final String BINARY = "sqlite_flightsql_server";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final int START_ATTEMPTS = 3;

  private Process process;
  private int port;

  /** {@code grpc://127.0.0.1:<port>} of the running server. */
  String uri() {
    if (process == null) {
      throw new IllegalStateException("The SQLite Flight SQL server is not running");
    }
    return "grpc://" + FreePorts.LOOPBACK + ":" + port;
  }

  /**
   * Skips the tests when the server can neither be found nor built, except in CI, where {@link
   * #beforeAll} then fails saying what is missing.
   */
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (configuredBinary() != null
        || Files.isExecutable(cachedBinary())
        || RequiredTool.GO.find() != null) {
      return ConditionEvaluationResult.enabled("the arrow-go SQLite server is built or buildable");
    }
    if (RequiredTool.inCi()) {
      return ConditionEvaluationResult.enabled(
          "CI=true: without Go the arrow-go SQLite server tests fail instead of being skipped");
    }
    return ConditionEvaluationResult.disabled(
        "Skipping the arrow-go SQLite server tests: "
            + cachedBinary()
            + " does not exist. "
            + RequiredTool.GO.missing(buildPurpose())
            + " Or set FLIGHTSQL_GO_SERVER to a built "
            + BINARY
            + ".");
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Path binary = binary();
    Path log = TestPaths.buildDir().resolve("sqlite-flightsql-server.log");
    LoopbackProcess started =
        LoopbackProcess.start(BINARY, binary, log, START_ATTEMPTS, START_TIMEOUT);
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

  /** What Go is needed for, for the messages of a missing Go. */
  private static String buildPurpose() {
    return "builds arrow-go's SQLite Flight SQL server ("
        + PACKAGE
        + ") into "
        + cachedBinary().getParent();
  }

  private static Path cachedBinary() {
    return TestPaths.userCache().resolve("gobin").resolve(BINARY);
  }

  /** The server binary: configured, cached, or built now with {@code go install}. */
  static Path binary() throws IOException, InterruptedException {
    Path configured = configuredBinary();
    if (configured != null) {
      return configured;
    }
    return GoInstall.cachedOrBuilt(
        PACKAGE, cachedBinary(), buildPurpose(), "go-install.log", "about two minutes");
  }
}
