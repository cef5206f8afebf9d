package io.flightsql.spark.client.transport;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a driver-side session learnt from its servers and executors must repeat for the servers to
 * recognize them: the bearer token obtained by basic authentication and the cookies the servers set
 * (e.g. the session cookie a ticket belongs to), each with the host or domain it goes back to
 * ({@link CookieJar}). Shipped with each input partition. Immutable and Serializable; its values
 * are secrets and {@link #toString()} shows only where each cookie goes, never a value.
 */
public final class SessionState implements Serializable {
  private static final long serialVersionUID = 2L;

  private static final SessionState EMPTY = new SessionState(null, Collections.emptyList());

  private final String bearerToken;
  private final ArrayList<SessionCookie> cookies;

  SessionState(String bearerToken, List<SessionCookie> cookies) {
    this.bearerToken = bearerToken;
    this.cookies = new ArrayList<>(cookies);
  }

  /** Nothing learnt: a fresh session. */
  public static SessionState empty() {
    return EMPTY;
  }

  String bearerToken() {
    return bearerToken;
  }

  List<SessionCookie> cookies() {
    return Collections.unmodifiableList(cookies);
  }

  @Override
  public String toString() {
    return "SessionState{token="
        + (bearerToken == null ? "none" : "*****")
        + ", cookies="
        + cookies
        + "}";
  }
}
