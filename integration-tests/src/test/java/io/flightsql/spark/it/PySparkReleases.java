package io.flightsql.spark.it;

import java.util.List;

/**
 * The PySpark releases the integration tests run the shaded jar under: the newest patch of each
 * release line the connector supports, as on PyPI. The README's compatibility table names the same.
 */
final class PySparkReleases {
  /** One release per supported line, oldest first. Spark 3.5's is built for Scala 2.12. */
  static final List<String> MATRIX = List.of("3.5.9", "4.0.5", "4.1.4", "4.2.1", "4.3.0");

  /** The release of the quick start, the notebook and the cluster test. */
  static final String DEFAULT = "4.1.4";

  /**
   * The newest release: the Spark Connect and SQL entry point tests run on it. PyPI also serves
   * {@code pyspark-client} (the Connect-only PySpark) of {@link #CONNECT_CLIENT}.
   */
  static final String NEWEST = "4.3.0";

  /** The newest {@code pyspark-client} on PyPI; older than {@link #NEWEST} here. */
  static final String CONNECT_CLIENT = "4.2.0";

  private PySparkReleases() {}

  /** Whether the release has Spark's TIME type, new in 4.1. */
  static boolean hasTimeType(String version) {
    String[] parts = version.split("\\.");
    int major = Integer.parseInt(parts[0]);
    return major > 4 || (major == 4 && Integer.parseInt(parts[1]) >= 1);
  }
}
