package io.flightsql.spark.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.client.transport.Allocators;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test after which the connector still holds Arrow memory: bytes allocated, or child
 * allocators not closed. Use it with {@code @ExtendWith(ArrowLeakCheckExtension.class)} on the
 * class; it runs after each test and after the class's own {@code @AfterEach} methods, so what a
 * test closes there (a server of its own) is closed before the check.
 *
 * <p>Spark closes a task's readers in task-completion listeners, which may still run when the
 * action has returned; the check waits for the memory to come back, up to a deadline far above the
 * milliseconds that takes, and then asserts that none is left. A leak thus costs a minute, never a
 * flaky pass or failure.
 */
public final class ArrowLeakCheckExtension implements AfterEachCallback {
  private static final long DEADLINE_SECONDS = 60;

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    assertNoneLeft(
        "after " + context.getRequiredTestClass().getSimpleName() + " " + context.getDisplayName());
  }

  /**
   * Waits until the connector holds no Arrow memory, then asserts so; {@code when} names the moment
   * in the failure, such as {@code "after the write"}. For tests that check mid-way, before reading
   * the allocators' peaks.
   */
  public static void assertNoneLeft(String when) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
    while ((Allocators.allocatedBytes() != 0 || Allocators.openChildren() != 0)
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(Allocators.allocatedBytes()).as("Arrow bytes still allocated %s", when).isZero();
    assertThat(Allocators.openChildren()).as("Arrow allocators still open %s", when).isZero();
  }
}
