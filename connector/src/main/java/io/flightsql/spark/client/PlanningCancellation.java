package io.flightsql.spark.client;

import java.util.Optional;

/**
 * Tells a query being planned whether whoever waits for it gave up (a cancelled Spark job, a killed
 * task), so that the query is cancelled on the server too. Asked between polls, from the planning
 * thread; an interrupt of that thread is a cancellation as well, without asking.
 */
@FunctionalInterface
public interface PlanningCancellation {
  /** Never cancelled: only an interrupt stops the planning. */
  PlanningCancellation NONE = Optional::empty;

  /** Why planning must stop, or empty to go on. */
  Optional<String> reason();
}
