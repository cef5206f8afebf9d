package io.flightsql.spark.it;

import org.apache.spark.sql.SparkSession;

/** The SparkSession of one test class: local, small, quiet, on the loopback interface. */
final class SparkSessions {
  private SparkSessions() {}

  static SparkSession local(String appName) {
    return local(appName, "local[2]");
  }

  /** With a master of one's own, such as {@code local[2,4]}: 2 cores, tasks tried 4 times. */
  static SparkSession local(String appName, String master) {
    return SparkSession.builder()
        .master(master)
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
