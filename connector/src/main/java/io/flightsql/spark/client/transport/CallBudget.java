package io.flightsql.spark.client.transport;

/**
 * What the caller of a call allows it and its retries: the time left before the caller's own
 * deadline (option {@code queryTimeout}, say) and whether the caller still wants the answer. The
 * call's deadline is capped by the time left, and a pause before a retry ends as soon as either
 * runs out, so that no retry outlives the caller's patience.
 */
public interface CallBudget {
  /** No deadline of the caller's, and never stopped: only an interrupt ends a pause early. */
  CallBudget UNLIMITED =
      new CallBudget() {
        @Override
        public long millisLeft() {
          return Long.MAX_VALUE;
        }

        @Override
        public boolean stopped() {
          return false;
        }
      };

  /**
   * Milliseconds left before the caller's deadline: 0 or less when it passed, MAX_VALUE for none.
   */
  long millisLeft();

  /** Whether the caller gave up waiting (it was cancelled); an interrupt is seen without asking. */
  boolean stopped();
}
