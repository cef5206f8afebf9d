package io.flightsql.spark.client.transport;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The Flight SQL clients of one {@code FlightSqlSession}, one per server it has called: the server
 * of option {@code uri} and any endpoint location it was sent to. They share one {@link CallState}
 * (one token, one cookie jar) and allocate from the session's allocator, which the session closes
 * after {@link #close()} has closed them. The first client of the session's own server also sets
 * the server session's defaults (the {@link Setup} its session gives). Not thread-safe, like its
 * session.
 */
public final class SessionClients implements AutoCloseable {
  private final FlightUri server;
  private final ConnectionSettings settings;
  private final CallState state;
  private final boolean continued;
  private final BufferAllocator allocator;
  private final Map<FlightUri, FlightSqlClientWithOptions> clients = new LinkedHashMap<>();
  private Boolean sessionHasDefaults;

  /**
   * What a session does on the first client of its own server before any other call: sets the
   * server session's defaults, and says whether the server took them.
   */
  @FunctionalInterface
  public interface Setup {
    boolean apply(FlightSqlClientWithOptions client);
  }

  private final Setup setup;

  public SessionClients(
      ConnectionSettings settings, SessionState seed, BufferAllocator allocator, Setup setup) {
    this.setup = setup;
    this.server = settings.uri();
    this.settings = settings;
    this.state = new CallState(settings, seed);
    this.continued = !seed.cookies().isEmpty();
    this.allocator = allocator;
  }

  /** The server of option {@code uri}. */
  public FlightUri server() {
    return server;
  }

  /** The session's connection settings. */
  public ConnectionSettings settings() {
    return settings;
  }

  /** The token and cookies the session has now. */
  public SessionState state() {
    return state.snapshot();
  }

  /** See {@code FlightSqlSession.sessionHasDefaults()}. */
  public boolean sessionHasDefaults() {
    forServer();
    return sessionHasDefaults;
  }

  /**
   * The client of the server of option {@code uri}, created (and the defaults set) on first use.
   */
  public FlightSqlClientWithOptions forServer() {
    return forTarget(server);
  }

  /** The client of {@code target}, created on first use. */
  FlightSqlClientWithOptions forTarget(FlightUri target) {
    FlightSqlClientWithOptions client = clients.get(target);
    if (client == null) {
      client = new FlightSqlClientWithOptions(target, state, allocator);
      if (target.equals(server) && sessionHasDefaults == null) {
        try {
          // A session continued from the driver's already has the defaults the driver's set.
          sessionHasDefaults = continued || setup.apply(client);
        } catch (RuntimeException e) {
          // Not kept: the next call tries the defaults again and fails as this one did.
          client.close();
          throw e;
        }
      }
      clients.put(target, client);
    }
    return client;
  }

  /**
   * The connector's exception for a failed call to {@code target}. A later call that finds the
   * channel unconnected makes it reconnect at once ({@link FlightChannels#channel}).
   */
  public static FlightSqlConnectorException failed(
      String rpc, FlightUri target, RuntimeException e) {
    return FlightErrors.rpcFailed(rpc, target, e);
  }

  /**
   * Closes every client, even when one fails, and raises the last failure. The allocator is not
   * closed here: it belongs to the session.
   */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (FlightSqlClientWithOptions client : clients.values()) {
      try {
        client.close();
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    clients.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
