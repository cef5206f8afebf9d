package io.flightsql.spark.client.transport;

import java.io.Serializable;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a driver-side session learnt from the server and executors must repeat for the server to
 * recognize them: the bearer token obtained by basic authentication and the cookies the server set
 * (e.g. the session cookie a ticket belongs to). Shipped with each input partition. Immutable and
 * Serializable; its values are secrets and {@link #toString()} shows only cookie names.
 */
public final class SessionState implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final SessionState EMPTY = new SessionState(null, Collections.emptyMap());

  private final String bearerToken;
  private final TreeMap<String, String> cookies;

  SessionState(String bearerToken, Map<String, String> cookies) {
    this.bearerToken = bearerToken;
    this.cookies = new TreeMap<>(cookies);
  }

  /** Nothing learnt: a fresh session. */
  public static SessionState empty() {
    return EMPTY;
  }

  String bearerToken() {
    return bearerToken;
  }

  Map<String, String> cookies() {
    return Collections.unmodifiableMap(cookies);
  }

  @Override
  public String toString() {
    return "SessionState{token="
        + (bearerToken == null ? "none" : "*****")
        + ", cookies="
        + cookies.keySet()
        + "}";
  }
}
