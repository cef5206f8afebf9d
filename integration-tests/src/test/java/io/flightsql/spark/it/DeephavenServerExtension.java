package io.flightsql.spark.it;

import io.flightsql.spark.servers.DeephavenServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs Deephaven's server ({@link DeephavenServer}) for one test class, with the contract tables
 * its start-up script makes; every call needs {@code authorization: Anonymous}. Without {@code
 * python3} the class is skipped, except in CI, where it fails. The server's output goes to {@code
 * target/deephaven-server.log}.
 */
final class DeephavenServerExtension implements BeforeAllCallback, AfterAllCallback {
  static final String VERSION = DeephavenServer.VERSION;

  private DeephavenServer server;

  /** {@code grpc://127.0.0.1:<port>} of the running server. */
  String uri() {
    if (server == null) {
      throw new IllegalStateException("Deephaven's server is not running");
    }
    return server.uri();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    server = DeephavenServer.start(TestPaths.buildDir().resolve("deephaven-server.log"));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
      server = null;
    }
  }
}
