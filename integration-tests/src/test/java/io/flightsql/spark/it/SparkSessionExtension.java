package io.flightsql.spark.it;

import io.flightsql.spark.servers.FreePorts;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The SparkSession of one test class: local, small, quiet, on the loopback interface, started
 * before the class's first {@code @BeforeAll} method and stopped after its last {@code @AfterAll}
 * method. The integration tests run against the shaded jar, so they keep this small copy of the
 * connector module's test extension rather than depend on that module's test classes.
 *
 * <pre>{@code
 * @RegisterExtension @Order(2)
 * static final SparkSessionExtension spark = SparkSessionExtension.local();
 * }</pre>
 *
 * <p>Register it on a static field, or on an instance field of a class with {@code
 * TestInstance.Lifecycle.PER_CLASS}, where JUnit honours an instance extension's {@code beforeAll}
 * and {@code afterAll}. JUnit calls the {@code beforeAll} callbacks of extensions registered on
 * fields in the order their {@code @Order} gives (static fields before instance fields), and the
 * {@code afterAll} callbacks in the reverse order: a session registered after a server extension
 * starts after the server and stops before it.
 */
final class SparkSessionExtension implements BeforeAllCallback, AfterAllCallback {
  private final String master;
  private SparkSession session;

  private SparkSessionExtension(String master) {
    this.master = master;
  }

  /** A {@code local[2]} session. */
  static SparkSessionExtension local() {
    return new SparkSessionExtension("local[2]");
  }

  /** With a master of one's own, such as {@code local[2,4]}: 2 cores, tasks tried 4 times. */
  static SparkSessionExtension local(String master) {
    return new SparkSessionExtension(master);
  }

  /** The test class's session, from its {@code @BeforeAll} methods to its {@code @AfterAll}. */
  SparkSession session() {
    if (session == null) {
      throw new IllegalStateException(
          "No SparkSession: the extension starts it before @BeforeAll, when registered with"
              + " @RegisterExtension");
    }
    return session;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    session =
        SparkSession.builder()
            .master(master)
            .appName(context.getRequiredTestClass().getSimpleName())
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.driver.host", FreePorts.LOOPBACK)
            .config("spark.driver.bindAddress", FreePorts.LOOPBACK)
            // Values compare against java.time objects, the same on every machine's time zone.
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.datetime.java8API.enabled", "true")
            .getOrCreate();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (session != null) {
      try {
        session.stop();
      } finally {
        session = null;
      }
    }
  }
}
