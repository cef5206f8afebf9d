package io.flightsql.spark.client.transport;

import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;

/**
 * The gRPC deadline of one call and the option that set it, so that a call past it is reported
 * naming that option. Two kinds, by what the call waits for:
 *
 * <ul>
 *   <li>{@link #work}: calls whose answer takes as long as the work asked for (a query's
 *       GetFlightInfo or first PollFlightInfo, a statement) have option {@code callTimeout} only; a
 *       dead connection under them is found by keepalive pings instead (option {@code
 *       keepAliveTime}), which do not cut a long but healthy query;
 *   <li>{@link #prompt}: calls the server answers without work proportional to the data (metadata,
 *       transactions, prepared statements, session options, actions, the polls of a query being
 *       run) have {@code callTimeout}, else {@code streamIdleTimeout}.
 * </ul>
 */
final class CallDeadline {
  static final CallDeadline NONE = new CallDeadline(0, null);

  private final long millis;

  /** The option that set the deadline; null for none, or for the caller's own limit. */
  private final String option;

  private CallDeadline(long millis, String option) {
    this.millis = millis;
    this.option = option;
  }

  static CallDeadline work(ConnectionSettings settings) {
    long timeout = settings.callTimeoutMillis();
    return timeout > 0 ? new CallDeadline(timeout, "callTimeout") : NONE;
  }

  static CallDeadline prompt(ConnectionSettings settings) {
    long timeout = settings.callTimeoutMillis();
    if (timeout > 0) {
      return new CallDeadline(timeout, "callTimeout");
    }
    timeout = settings.streamIdleTimeoutMillis();
    return timeout > 0 ? new CallDeadline(timeout, "streamIdleTimeout") : NONE;
  }

  /** This deadline, or the caller's time left when that is shorter. */
  CallDeadline cappedBy(CallBudget budget) {
    long left = budget.millisLeft();
    return left == Long.MAX_VALUE ? this : cappedAt(Math.max(1, left), null);
  }

  /** This deadline, or {@code capMillis} when that is shorter. */
  CallDeadline cappedAt(long capMillis) {
    return cappedAt(capMillis, option);
  }

  private CallDeadline cappedAt(long capMillis, String capOption) {
    return millis > 0 && millis <= capMillis ? this : new CallDeadline(capMillis, capOption);
  }

  CallOption[] options() {
    return millis > 0
        ? new CallOption[] {CallOptions.timeout(millis, TimeUnit.MILLISECONDS)}
        : new CallOption[0];
  }

  /**
   * A call that failed with TIMED_OUT, said to have passed this deadline, naming its option, when
   * it did: a server may also answer TIMED_OUT of its own, which is left as it is.
   */
  FlightRuntimeException explain(FlightRuntimeException e, long startNanos) {
    if (option == null || TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) < millis) {
      return e;
    }
    String which =
        option.equals("streamIdleTimeout")
            ? ", the deadline of calls that should answer at once while 'callTimeout' is unset"
            : "";
    // gRPC's own words (the time, the remote address) stay in the cause.
    return CallStatus.TIMED_OUT
        .withDescription(
            "no answer within option '"
                + option
                + "' ("
                + StreamWatch.describe(millis)
                + ")"
                + which)
        .withCause(e)
        .toRuntimeException();
  }
}
