package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.client.transport.Allocators;

/**
 * Checks that the connector holds no Arrow memory. {@link Allocators} lives in the shaded jar, and
 * its API uses no Arrow types, so the tests can read the relocated allocator without touching
 * relocated classes themselves.
 */
final class ArrowLeaks {
  private ArrowLeaks() {}

  static void assertNoneLeft(String when) {
    // An executor task may close its reader a moment after the driver already has the result.
    long deadline = System.nanoTime() + 5_000_000_000L;
    while ((Allocators.allocatedBytes() != 0 || Allocators.openChildren() != 0)
        && System.nanoTime() < deadline) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    assertThat(Allocators.allocatedBytes())
        .as("Arrow bytes the connector still holds %s", when)
        .isZero();
    assertThat(Allocators.openChildren())
        .as("Arrow allocators the connector has not closed %s", when)
        .isZero();
  }
}
