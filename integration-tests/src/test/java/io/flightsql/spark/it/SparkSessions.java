package io.flightsql.spark.it;

import org.apache.spark.sql.SparkSession;

/** The SparkSession of one test class: local, small, quiet, on the loopback interface. */
final class SparkSessions {
  private SparkSessions() {}

  static SparkSession local(String appName) {
    return SparkSession.builder()
        .master("local[2]")
        .appName(appName)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", FreePorts.LOOPBACK)
        .config("spark.driver.bindAddress", FreePorts.LOOPBACK)
        // Values compare against java.time objects, the same on every machine's time zone.
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.datetime.java8API.enabled", "true")
        .getOrCreate();
  }
}
