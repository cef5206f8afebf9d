package io.flightsql.spark.client.transport;

import java.io.Serializable;

/**
 * One cookie a server set, as RFC 6265 (section 5.3) stores it: its name and value, the host or
 * domain it goes back to, its path, whether it goes only over TLS, and when it expires. Immutable
 * and Serializable, to travel from the driver to executors in a {@link SessionState}; its value is
 * a secret, which {@link #toString()} does not show.
 */
final class SessionCookie implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The expiry of a cookie without Max-Age or Expires, which lasts as long as the session. */
  static final long SESSION = Long.MAX_VALUE;

  final String name;
  final String value;

  /** The host (host-only) or domain, lower case, without a leading dot. */
  final String domain;

  /** Whether the cookie goes back only to the host that set it, not to its subdomains. */
  final boolean hostOnly;

  final String path;
  final boolean secure;
  final long expiresAtMillis;
  final long createdAtMillis;

  SessionCookie(
      String name,
      String value,
      String domain,
      boolean hostOnly,
      String path,
      boolean secure,
      long expiresAtMillis,
      long createdAtMillis) {
    this.name = name;
    this.value = value;
    this.domain = domain;
    this.hostOnly = hostOnly;
    this.path = path;
    this.secure = secure;
    this.expiresAtMillis = expiresAtMillis;
    this.createdAtMillis = createdAtMillis;
  }

  /** Whether {@code other} takes this one's place when stored: same name, domain and path. */
  boolean sameSlot(SessionCookie other) {
    return name.equals(other.name) && domain.equals(other.domain) && path.equals(other.path);
  }

  boolean expired(long nowMillis) {
    return nowMillis >= expiresAtMillis;
  }

  /** {@code name@domain/path}: where the cookie goes, never its value. */
  @Override
  public String toString() {
    return name + "@" + (hostOnly ? "" : ".") + domain + path;
  }
}
