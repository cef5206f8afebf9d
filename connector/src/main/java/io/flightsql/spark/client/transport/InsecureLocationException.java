package io.flightsql.spark.client.transport;

/**
 * The connector's refusal to read an endpoint from a plaintext location when option {@code uri}
 * uses TLS: nothing was sent to that location. Serializable, like its parent.
 */
public final class InsecureLocationException extends FlightSqlConnectorException {
  private static final long serialVersionUID = 1L;

  InsecureLocationException(FlightUri location) {
    super(
        FlightErrors.message("DoGet refused for ")
            + location
            + ": the endpoint location is plaintext while option 'uri' uses TLS, and the"
            + " connection's credentials, headers and cookies are not sent in clear. Set option"
            + " 'allowInsecureLocations' to true to read from it anyway",
        "FAILED_PRECONDITION",
        "plaintext location behind a TLS uri",
        null);
  }
}
