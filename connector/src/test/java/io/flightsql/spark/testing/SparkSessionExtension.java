package io.flightsql.spark.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One local SparkSession per test class: started before the class's first {@code @BeforeAll}
 * method, stopped after its last {@code @AfterAll} method. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension @Order(2)
 * static final SparkSessionExtension spark = SparkSessionExtension.local();
 * }</pre>
 *
 * <p>The session is {@code local[2]}, named after the test class, without its UI, with two shuffle
 * partitions, in UTC, and with {@code java.time} values for dates and timestamps; {@link
 * #master(String)} and {@link #config(String, String)} change or add to that before it starts.
 * Settings that depend on something started later (a server's URI) can be set in a
 * {@code @BeforeAll} method with {@code spark.session().conf().set(...)}.
 *
 * <p>JUnit calls the {@code beforeAll} callbacks of extensions registered on fields in the order
 * their {@code @Order} gives, and the {@code afterAll} callbacks in the reverse order. A session
 * registered after an {@link EmbeddedServerExtension} thus starts after the server and stops before
 * it, as a job never outlives its server; without {@code @Order} JUnit's order of fields is
 * deterministic but not the order in the source.
 */
public final class SparkSessionExtension implements BeforeAllCallback, AfterAllCallback {
  private final Map<String, String> settings = new LinkedHashMap<>();
  private String master = "local[2]";
  private SparkSession session;

  private SparkSessionExtension() {
    settings.put("spark.ui.enabled", "false");
    settings.put("spark.sql.shuffle.partitions", "2");
    settings.put("spark.sql.session.timeZone", "UTC");
    settings.put("spark.sql.datetime.java8API.enabled", "true");
  }

  /** A {@code local[2]} session with the settings above. */
  public static SparkSessionExtension local() {
    return new SparkSessionExtension();
  }

  /** Another master, such as {@code local[2,4]}: two cores, a failed task tried up to 4 times. */
  public SparkSessionExtension master(String master) {
    this.master = master;
    return this;
  }

  /** Adds a setting, or replaces one of the defaults, for the session this starts. */
  public SparkSessionExtension config(String key, String value) {
    settings.put(key, value);
    return this;
  }

  /** The test class's session, from its {@code @BeforeAll} methods to its {@code @AfterAll}. */
  public SparkSession session() {
    if (session == null) {
      throw new IllegalStateException(
          "No SparkSession: the extension starts it before @BeforeAll, when registered on a"
              + " static field with @RegisterExtension");
    }
    return session;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    SparkSession.Builder builder =
        SparkSession.builder()
            .master(master)
            .appName(context.getRequiredTestClass().getSimpleName());
    settings.forEach(builder::config);
    session = builder.getOrCreate();
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
