package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.client.transport.Allocators;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test after which the connector still holds Arrow memory; use it with
 * {@code @ExtendWith(ArrowLeakCheckExtension.class)}. It runs after each test and after the class's
 * own {@code @AfterEach} methods.
 *
 * <p>{@link Allocators} lives in the shaded jar, and its API uses no Arrow types, so the tests can
 * read the relocated allocator without touching relocated classes themselves. An executor task may
 * close its reader a moment after the driver already has the result: the check waits for the memory
 * to come back, up to a deadline far above the milliseconds that takes, then asserts that none is
 * left.
 */
final class ArrowLeakCheckExtension implements AfterEachCallback {
  private static final long DEADLINE_SECONDS = 60;

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
    while ((Allocators.allocatedBytes() != 0 || Allocators.openChildren() != 0)
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    String when =
        "after " + context.getRequiredTestClass().getSimpleName() + " " + context.getDisplayName();
    assertThat(Allocators.allocatedBytes())
        .as("Arrow bytes the connector still holds %s", when)
        .isZero();
    assertThat(Allocators.openChildren())
        .as("Arrow allocators the connector has not closed %s", when)
        .isZero();
  }
}
