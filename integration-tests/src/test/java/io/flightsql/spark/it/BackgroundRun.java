package io.flightsql.spark.it;

import io.flightsql.spark.servers.ExternalCommand;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A program run (or several steps ending in one) started in the background when a test class
 * starts, so that the JVMs of independent runs start and work at the same time; each test then
 * awaits the run it checks, and sees the run's own exception if it failed.
 */
final class BackgroundRun {
  /** What runs in the background: typically {@link ExternalCommand#run}. */
  interface Step {
    ExternalCommand.Result run() throws Exception;
  }

  private final CompletableFuture<ExternalCommand.Result> future;

  private BackgroundRun(CompletableFuture<ExternalCommand.Result> future) {
    this.future = future;
  }

  static BackgroundRun start(String what, Step step) {
    return new BackgroundRun(
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return step.run();
              } catch (Exception e) {
                throw new IllegalStateException(what + " failed", e);
              }
            }));
  }

  /** The finished run; its own exception if it threw one. */
  ExternalCommand.Result await() throws Exception {
    try {
      return future.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IllegalStateException && cause.getCause() instanceof Exception inner) {
        throw inner;
      }
      throw e;
    }
  }
}
