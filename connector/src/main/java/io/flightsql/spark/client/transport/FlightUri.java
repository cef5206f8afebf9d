package io.flightsql.spark.client.transport;

import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Objects;

/**
 * A Flight server address: scheme, host and port, nothing else. Anything that could carry a secret
 * (user info, query, fragment) is rejected when parsing a user's URI, so {@link #toString()} is
 * always safe to print.
 */
public final class FlightUri implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The forms accepted, for error messages. */
  public static final String EXPECTED =
      "grpc://host:port, grpc+tcp://host:port or grpc+tls://host:port";

  private final String host;
  private final int port;
  private final boolean tls;

  private FlightUri(String host, int port, boolean tls) {
    this.host = host;
    this.port = port;
    this.tls = tls;
  }

  public static FlightUri of(String host, int port, boolean tls) {
    return new FlightUri(host, port, tls);
  }

  /**
   * Parses a user-supplied URI.
   *
   * @throws IllegalArgumentException with the reason, but without echoing the text back (it may
   *     hold credentials); callers add the option name.
   */
  public static FlightUri parse(String text) {
    URI uri;
    try {
      uri = new URI(text.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a valid URI: " + e.getReason());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    boolean tls;
    switch (scheme) {
      case "grpc":
      case "grpc+tcp":
        tls = false;
        break;
      case "grpc+tls":
        tls = true;
        break;
      default:
        throw new IllegalArgumentException(
            scheme.isEmpty()
                ? "the scheme is missing"
                : "scheme '" + scheme + "' is not supported");
    }
    if (uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "credentials in the URI are not supported; pass them as options");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new IllegalArgumentException("the host is missing");
    }
    if (uri.getPort() < 1 || uri.getPort() > 65535) {
      throw new IllegalArgumentException("the port is missing or out of range");
    }
    String path = uri.getRawPath();
    if ((path != null && !path.isEmpty() && !"/".equals(path))
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null) {
      throw new IllegalArgumentException("a path, query or fragment is not supported");
    }
    return new FlightUri(uri.getHost(), uri.getPort(), tls);
  }

  /** The text with any user info (user:password@) masked, for echoing a user's URI back safely. */
  public static String redact(String text) {
    return text == null ? null : text.replaceAll("//[^/@]*@", "//*****@");
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public boolean isTls() {
    return tls;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof FlightUri)) {
      return false;
    }
    FlightUri that = (FlightUri) o;
    return port == that.port && tls == that.tls && host.equalsIgnoreCase(that.host);
  }

  @Override
  public int hashCode() {
    return Objects.hash(host.toLowerCase(Locale.ROOT), port, tls);
  }

  @Override
  public String toString() {
    String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    return (tls ? "grpc+tls://" : "grpc://") + h + ":" + port;
  }
}
