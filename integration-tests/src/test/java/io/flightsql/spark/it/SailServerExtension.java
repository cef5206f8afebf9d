package io.flightsql.spark.it;

import io.flightsql.spark.servers.SailServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs Sail's Flight SQL server ({@link SailServer}) for one test class, with its tables under
 * {@code target/sail}; without {@code python3} the class is skipped, except in CI, where it fails.
 * The server's output goes to {@code target/sail-flight-server.log}.
 */
final class SailServerExtension implements BeforeAllCallback, AfterAllCallback {
  static final String VERSION = SailServer.VERSION;

  private SailServer server;

  /** {@code grpc://127.0.0.1:<port>} of the running server. */
  String uri() {
    if (server == null) {
      throw new IllegalStateException("Sail's Flight SQL server is not running");
    }
    return server.uri();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    server =
        SailServer.start(
            TestPaths.buildDir().resolve("sail"),
            TestPaths.buildDir().resolve("sail-flight-server.log"));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
      server = null;
    }
  }
}
