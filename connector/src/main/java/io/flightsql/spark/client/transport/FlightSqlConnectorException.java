package io.flightsql.spark.client.transport;

/**
 * A failure talking to a Flight SQL server. Unlike gRPC's and Flight's own exceptions it is
 * Serializable through and through, so it reaches the Spark driver intact from an executor: it
 * keeps the gRPC status code and the server's message as plain strings, and the original stack
 * trace as that of a plain cause.
 */
public class FlightSqlConnectorException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String statusCode;
  private final String serverMessage;

  public FlightSqlConnectorException(
      String message, String statusCode, String serverMessage, Throwable cause) {
    super(message, cause);
    this.statusCode = statusCode;
    this.serverMessage = serverMessage;
  }

  /** The gRPC status code name, e.g. {@code UNAVAILABLE}, or {@code UNKNOWN}. */
  public String statusCode() {
    return statusCode;
  }

  /** What the server (or the transport) said, without the connector's context. */
  public String serverMessage() {
    return serverMessage;
  }
}
