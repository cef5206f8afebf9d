package io.flightsql.spark.client.transport;

import java.util.List;

/**
 * The connector's refusal to read an endpoint from a location on a host that the connection's
 * credentials do not go to (option {@code credentialHosts}, {@link CredentialHosts}): nothing was
 * sent to that location. Serializable, like its parent.
 */
public final class UntrustedLocationException extends FlightSqlConnectorException {
  private static final long serialVersionUID = 1L;

  UntrustedLocationException(FlightUri server, FlightUri location, List<String> credentials) {
    super(
        FlightErrors.message("DoGet refused for ")
            + location
            + ": the endpoint location is on host '"
            + location.host()
            + "', which is neither the host of option 'uri' ('"
            + server.host()
            + "') nor one named by option 'credentialHosts', and the connection's credentials ("
            + String.join(", ", credentials)
            + ") go to no other host; nothing was sent to it. If that host serves this server's"
            + " data (a worker of the same cluster), name it in option 'credentialHosts', e.g."
            + " .option(\"credentialHosts\", \""
            + location.host()
            + "\"); '*.<domain>' names every host under a domain, '*' any host",
        "FAILED_PRECONDITION",
        "endpoint location on a host not named by option 'credentialHosts'",
        null);
  }
}
