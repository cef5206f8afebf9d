package io.flightsql.spark.testing;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.server.DuckDbFlightSqlServerBuilder;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The embedded DuckDB Flight SQL server of a test class, in-process on 127.0.0.1 and a free port:
 * started before the class's first {@code @BeforeAll} method, closed after its last
 * {@code @AfterAll} method. Register it on a static field, one field per server the class needs:
 *
 * <pre>{@code
 * @RegisterExtension @Order(1)
 * static final EmbeddedServerExtension duckDb =
 *     EmbeddedServerExtension.duckDb(server -> server.endpoints(2).lineitemRows(0));
 * }</pre>
 *
 * <p>Data the tests need can be created in a {@code @BeforeAll} method through {@link #server()},
 * which JUnit runs after this extension started the server. Closing the server fails the class when
 * the server leaked Arrow memory of its own.
 *
 * <p>JUnit calls the {@code beforeAll} callbacks of extensions registered on fields in the order
 * their {@code @Order} gives, and the {@code afterAll} callbacks in the reverse order: give servers
 * a lower {@code @Order} than the {@link SparkSessionExtension}, so that the session stops before
 * the servers its jobs read from.
 */
public final class EmbeddedServerExtension implements BeforeAllCallback, AfterAllCallback {
  private final UnaryOperator<DuckDbFlightSqlServerBuilder> settings;
  private DuckDbFlightSqlServer server;

  private EmbeddedServerExtension(UnaryOperator<DuckDbFlightSqlServerBuilder> settings) {
    this.settings = settings;
  }

  /**
   * A DuckDB server built by {@code settings} from {@link DuckDbFlightSqlServer#builder()}, whose
   * port is 0 (a free one) unless {@code settings} says otherwise.
   */
  public static EmbeddedServerExtension duckDb(
      UnaryOperator<DuckDbFlightSqlServerBuilder> settings) {
    return new EmbeddedServerExtension(settings);
  }

  /** The running server, from the class's {@code @BeforeAll} methods to its {@code @AfterAll}. */
  public DuckDbFlightSqlServer server() {
    if (server == null) {
      throw new IllegalStateException(
          "No server: the extension starts it before @BeforeAll, when registered on a static"
              + " field with @RegisterExtension");
    }
    return server;
  }

  /** The running server's URI, {@code grpc://127.0.0.1:<port>}. */
  public String uri() {
    return server().uri();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    server = settings.apply(DuckDbFlightSqlServer.builder()).start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      try {
        server.close();
      } finally {
        server = null;
      }
    }
  }
}
