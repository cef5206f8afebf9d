package io.flightsql.spark.write;

import io.flightsql.spark.client.transport.FlightUri;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warnings about a risk that stays the same for every write to one server, such as a server without
 * transactions: logged once per JVM and server, so that a job of a thousand writes says it once and
 * not a thousand times. Driver only.
 */
final class ServerWarnings {
  private static final Logger LOG = LoggerFactory.getLogger(ServerWarnings.class);

  /** Server and kind of each warning given; a few per server, so never evicted. */
  private static final Set<String> GIVEN = ConcurrentHashMap.newKeySet();

  private ServerWarnings() {}

  /** Logs {@code format} (slf4j placeholders) unless a warning of this kind was given for it. */
  static void once(FlightUri server, String kind, String format, Object... arguments) {
    if (GIVEN.add(server + " " + kind)) {
      LOG.warn(format, arguments);
    }
  }
}
