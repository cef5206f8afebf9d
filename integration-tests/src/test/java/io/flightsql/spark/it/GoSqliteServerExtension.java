package io.flightsql.spark.it;

import io.flightsql.spark.servers.GoSqliteServer;
import io.flightsql.spark.servers.RequiredTool;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs arrow-go's SQLite Flight SQL example ({@link GoSqliteServer}) for one test class. Register
 * it on a static field with {@code @RegisterExtension}; {@link #uri()} is valid from the class's
 * {@code @BeforeAll} on. Without a {@code go} command on the PATH, and no built server, the test
 * class is skipped, except in CI ({@code CI=true}), where it fails ({@link RequiredTool}). The
 * server's output goes to {@code target/sqlite-flightsql-server.log}.
 */
final class GoSqliteServerExtension
    implements ExecutionCondition, BeforeAllCallback, AfterAllCallback {
  private GoSqliteServer server;

  /** {@code grpc://127.0.0.1:<port>} of the running server. */
  String uri() {
    if (server == null) {
      throw new IllegalStateException("The SQLite Flight SQL server is not running");
    }
    return server.uri();
  }

  /**
   * Skips the tests when the server can neither be found nor built, except in CI, where {@link
   * #beforeAll} then fails saying what is missing.
   */
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (GoSqliteServer.available()) {
      return ConditionEvaluationResult.enabled("the arrow-go SQLite server is built or buildable");
    }
    if (RequiredTool.inCi()) {
      return ConditionEvaluationResult.enabled(
          "CI=true: without Go the arrow-go SQLite server tests fail instead of being skipped");
    }
    return ConditionEvaluationResult.disabled(
        "Skipping the arrow-go SQLite server tests: "
            + GoSqliteServer.cachedBinary()
            + " does not exist. "
            + RequiredTool.GO.missing(GoSqliteServer.buildPurpose())
            + " Or set FLIGHTSQL_GO_SERVER to a built "
            + GoSqliteServer.BINARY
            + ".");
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    server = GoSqliteServer.start(TestPaths.buildDir().resolve("sqlite-flightsql-server.log"));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
      server = null;
    }
  }
}
