package io.flightsql.spark.server;

import java.time.Duration;

/**
 * How the server treats long-running queries and the lifetime of their endpoints, for tests of
 * clients: how slow planning a statement query is, whether PollFlightInfo runs it in the
 * background, whether endpoints expire and whether they can be renewed.
 *
 * @param planningDelay how long planning a statement query takes at least (GetFlightInfo waits it
 *     out; PollFlightInfo reports progress meanwhile); zero for no delay
 * @param poll whether PollFlightInfo is implemented; without it, it answers UNIMPLEMENTED
 * @param endpointExpiration how long a statement query's endpoints may be redeemed after planning;
 *     null for ever
 * @param renew whether RenewFlightEndpoint is implemented; without it, it answers UNIMPLEMENTED
 */
record LongQuerySettings(
    Duration planningDelay, boolean poll, Duration endpointExpiration, boolean renew) {

  /** The defaults: no delay, PollFlightInfo and RenewFlightEndpoint on, endpoints never expire. */
  static final LongQuerySettings DEFAULTS = new LongQuerySettings(Duration.ZERO, true, null, true);

  LongQuerySettings {
    if (planningDelay == null || planningDelay.isNegative()) {
      throw new IllegalArgumentException(
          "Invalid value '" + planningDelay + "' for option 'planningDelay': expected >= 0");
    }
    if (endpointExpiration != null
        && (endpointExpiration.isNegative() || endpointExpiration.isZero())) {
      throw new IllegalArgumentException(
          "Invalid value '"
              + endpointExpiration
              + "' for option 'endpointExpiration': expected a duration above zero");
    }
  }

  /** The expiration time of an endpoint planned at {@code nowMillis}; 0 for none. */
  long expiresAtMillis(long nowMillis) {
    return endpointExpiration == null ? 0 : nowMillis + endpointExpiration.toMillis();
  }

  @Override
  public String toString() {
    return "planningDelay="
        + planningDelay
        + ", poll="
        + poll
        + ", endpointExpiration="
        + (endpointExpiration == null ? "none" : endpointExpiration)
        + ", renew="
        + renew;
  }
}
