package io.flightsql.spark.client.transport;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Where to read a FlightEndpoint from. An endpoint without locations, or with Flight's "reuse this
 * connection" location, is read from the server the query was sent to; otherwise its locations are
 * tried in order.
 */
public final class EndpointTargets {
  static final String REUSE_CONNECTION_SCHEME = "arrow-flight-reuse-connection";

  private EndpointTargets() {}

  /**
   * The servers to try, in order, for an endpoint with these location URIs.
   *
   * @throws IllegalArgumentException when a location has a scheme the connector cannot use
   */
  public static List<FlightUri> resolve(FlightUri original, List<String> locations) {
    if (locations.isEmpty()) {
      return Collections.singletonList(original);
    }
    List<FlightUri> targets = new ArrayList<>();
    for (String location : locations) {
      FlightUri target = toTarget(original, location);
      if (!targets.contains(target)) {
        targets.add(target);
      }
    }
    return targets;
  }

  private static FlightUri toTarget(FlightUri original, String location) {
    if (location == null || location.trim().isEmpty()) {
      return original;
    }
    URI uri = URI.create(location.trim());
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (REUSE_CONNECTION_SCHEME.equals(scheme)) {
      return original;
    }
    try {
      return FlightUri.parse(location);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "The server returned an endpoint location the connector cannot read from ('"
              + FlightUri.redact(location.trim())
              + "'): "
              + e.getMessage(),
          e);
    }
  }
}
