package io.flightsql.spark.client.metadata;

import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightChannels;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What each server said of itself (GetSqlInfo, and the quoting probe where it was needed),
 * remembered per JVM so that planning a read does not ask again: at most {@value #MAX_SERVERS}
 * servers, each for {@value #TTL_MINUTES} minutes, and only while the connection it was asked over
 * lasts. A new connection to the address (a restarted server, or another one on the port) asks
 * again. Thread-safe; two threads that miss at once may both ask.
 */
final class KnownServers {
  static final int MAX_SERVERS = 64;
  static final long TTL_MINUTES = 10;

  private static final Map<FlightChannels.Key, Known> CAPABILITIES =
      new LinkedHashMap<FlightChannels.Key, Known>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<FlightChannels.Key, Known> eldest) {
          return size() > MAX_SERVERS;
        }
      };

  private KnownServers() {}

  /**
   * The capabilities of the server {@code settings} names, remembered, or asked with {@code ask}
   * (outside any lock) and remembered.
   */
  static ServerCapabilities capabilities(
      ConnectionSettings settings, Supplier<ServerCapabilities> ask) {
    FlightChannels.Key key = new FlightChannels.Key(settings.uri(), settings);
    long now = System.nanoTime();
    synchronized (CAPABILITIES) {
      Known known = CAPABILITIES.get(key);
      if (known != null
          && now - known.askedAt < TimeUnit.MINUTES.toNanos(TTL_MINUTES)
          && known.connection == FlightChannels.connection(settings.uri(), settings)) {
        return known.capabilities;
      }
    }
    ServerCapabilities asked = ask.get();
    // Taken after the answer, which has connected the channel.
    long connection = FlightChannels.connection(settings.uri(), settings);
    synchronized (CAPABILITIES) {
      CAPABILITIES.put(key, new Known(asked, now, connection));
    }
    return asked;
  }

  /** Forgets every server; for tests. */
  static void clear() {
    synchronized (CAPABILITIES) {
      CAPABILITIES.clear();
    }
  }

  private static final class Known {
    final ServerCapabilities capabilities;
    final long askedAt;
    final long connection;

    Known(ServerCapabilities capabilities, long askedAt, long connection) {
      this.capabilities = capabilities;
      this.askedAt = askedAt;
      this.connection = connection;
    }
  }
}
