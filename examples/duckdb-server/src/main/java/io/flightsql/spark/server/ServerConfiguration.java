package io.flightsql.spark.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.Location;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;

/**
 * Everything a {@link DuckDbFlightSqlServerBuilder} was told, as {@link ServerStartup} starts a
 * server from it and tests of the command line read it back. Each value was checked by the
 * builder's setter; null means not set.
 *
 * <p>Immutable. {@link #toString()} leaves the password and the bearer token out.
 *
 * @param settings the DuckDB settings, in the order they apply
 * @param endpointLocations the locations every endpoint advertises; empty for this server
 * @param longQueries planning delay, PollFlightInfo, endpoint expiration and renewal
 * @param middleware the caller's middleware, installed ahead of the server's own, in this order
 * @param actionObservers told each action's type before it runs, in this order
 * @param doGetPacing the pause before each DoGet batch and the observers of cancelled DoGets
 * @param doGetCompression the codec of the record batches of query streams
 * @param withoutCommands the metadata commands that answer UNIMPLEMENTED, as on servers that lack
 *     them
 */
record ServerConfiguration(
    String host,
    int port,
    int endpoints,
    long lineitemRows,
    int batchRows,
    Path data,
    List<DuckDbSetting> settings,
    String username,
    String password,
    String bearerToken,
    Path tlsCertificateChain,
    Path tlsPrivateKey,
    Path trustedClientCa,
    boolean sessions,
    List<Location> endpointLocations,
    LongQuerySettings longQueries,
    List<ExtraMiddleware<?>> middleware,
    List<BiConsumer<FlightProducer.CallContext, String>> actionObservers,
    DoGetPacing doGetPacing,
    CodecType doGetCompression,
    Set<String> withoutCommands) {

  ServerConfiguration {
    withoutCommands = Set.copyOf(withoutCommands);
    settings = List.copyOf(settings);
    endpointLocations = List.copyOf(endpointLocations);
    middleware = List.copyOf(middleware);
    actionObservers = List.copyOf(actionObservers);
  }

  /**
   * A middleware factory with its key, typed together so that they stay a pair Flight accepts.
   *
   * @param <T> the middleware each call gets
   */
  record ExtraMiddleware<T extends FlightServerMiddleware>(
      FlightServerMiddleware.Key<T> key, FlightServerMiddleware.Factory<T> factory) {

    void installOn(FlightServer.Builder builder) {
      builder.middleware(key, factory);
    }
  }

  boolean tls() {
    return tlsCertificateChain != null;
  }

  /** The security settings, for the start-up log line; no secret, only whether one is set. */
  String security() {
    List<String> parts = new ArrayList<>();
    parts.add(tlsCertificateChain == null ? "no TLS" : "TLS");
    if (trustedClientCa != null) {
      parts.add("client certificates required");
    }
    if (password != null) {
      parts.add("basic auth for user '" + username + "'");
    }
    if (bearerToken != null) {
      parts.add("fixed bearer token");
    }
    if (sessions) {
      parts.add("sessions");
    }
    return String.join(", ", parts);
  }

  @Override
  public String toString() {
    return "ServerConfiguration[host="
        + host
        + ", port="
        + port
        + ", endpoints="
        + endpoints
        + ", lineitemRows="
        + lineitemRows
        + ", batchRows="
        + batchRows
        + ", data="
        + data
        + ", settings="
        + settings
        + ", endpointLocations="
        + endpointLocations
        + ", "
        + longQueries
        + ", "
        + security()
        + ", "
        + middleware.size()
        + " extra middleware, "
        + actionObservers.size()
        + " action observers, DoGet batch delay "
        + doGetPacing.batchDelay()
        + ", DoGet compression "
        + doGetCompression
        + "]";
  }
}
