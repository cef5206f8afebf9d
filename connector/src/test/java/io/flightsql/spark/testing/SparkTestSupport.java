package io.flightsql.spark.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.client.transport.Allocators;
import org.apache.spark.sql.SparkSession;

/** One local[2] SparkSession per test class, and the Arrow leak check every test ends with. */
public final class SparkTestSupport {
  private SparkTestSupport() {}

  public static SparkSession newSession(String name) {
    return SparkSession.builder()
        .master("local[2]")
        .appName(name)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.datetime.java8API.enabled", "true")
        .getOrCreate();
  }

  /**
   * Fails when the connector holds Arrow memory after a job. Readers are closed by task-completion
   * listeners, which may still be running when an action returns, so this waits a little.
   */
  public static void assertNoArrowMemoryLeft() throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while ((Allocators.allocatedBytes() != 0 || Allocators.openChildren() != 0)
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(Allocators.allocatedBytes()).as("Arrow bytes still allocated").isZero();
    assertThat(Allocators.openChildren()).as("Arrow allocators still open").isZero();
  }
}
