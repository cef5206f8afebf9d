package io.flightsql.spark.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.Location;

/**
 * Everything a {@link DuckDbFlightSqlServer.Builder} was told, as {@link ServerStartup} starts a
 * server from it and tests of the command line read it back. Each value was checked by the
 * builder's setter; null means not set.
 *
 * <p>Immutable. {@link #toString()} leaves the password and the bearer token out.
 *
 * @param settings the DuckDB settings, in the order they apply
 * @param endpointLocations the locations every endpoint advertises; empty for this server
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
    List<Location> endpointLocations) {

  ServerConfiguration {
    settings = List.copyOf(settings);
    endpointLocations = List.copyOf(endpointLocations);
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
        + security()
        + "]";
  }
}
