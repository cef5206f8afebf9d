package io.flightsql.spark.client.transport;

import java.net.HttpCookie;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightMethod;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The credentials one {@code FlightSqlSession} sends with every call, and a Flight client
 * middleware that sends them: the headers of options {@code header.*}, {@code authorization:
 * Bearer} with the fixed token or the one basic authentication obtained, and the cookies the server
 * set. The middleware also keeps what the server answers: {@code set-cookie} headers and a (new)
 * bearer token. Thread-safe: a gRPC callback thread writes what a task thread reads.
 *
 * <p>Arrow's own {@code ClientCookieMiddleware} keeps cookies in a factory that cannot be seeded or
 * read, and a session cookie must travel from the driver to executors, hence this class.
 */
final class CallState implements FlightClientMiddleware.Factory {
  private static final Logger LOG = LoggerFactory.getLogger(CallState.class);

  /**
   * Bearer tokens obtained by basic authentication in this JVM, by identity fingerprint, so that
   * every session of a job does not log in again.
   */
  private static final ConcurrentMap<String, String> TOKENS = new ConcurrentHashMap<>();

  private final ConnectionSettings settings;
  private final String identity;
  private volatile String bearer;
  private final Map<String, String> cookies = new ConcurrentSkipListMap<>();

  CallState(ConnectionSettings settings, SessionState seed) {
    this.settings = settings;
    this.identity = settings.identityFingerprint();
    if (settings.token() != null) {
      bearer = settings.token();
    } else if (settings.basicAuth()) {
      bearer = seed.bearerToken() != null ? seed.bearerToken() : TOKENS.get(identity);
    } else if (headerAuth()) {
      // The server session the driver opened, so that executors redeem its tickets in it.
      bearer = seed.bearerToken();
    }
    cookies.putAll(seed.cookies());
  }

  ConnectionSettings settings() {
    return settings;
  }

  /** Whether a basic-auth session still has to log in before its first call. */
  boolean needsLogin() {
    return settings.basicAuth() && bearer == null;
  }

  /**
   * Whether option {@code header.authorization} opens the session, and the server may answer with a
   * bearer token (a session token) for the calls after it.
   */
  private boolean headerAuth() {
    return settings.headers().containsKey("authorization");
  }

  /** Forgets a token the server refused, here and in the JVM's cache. */
  void tokenRefused() {
    String refused = bearer;
    if (refused != null && settings.basicAuth()) {
      TOKENS.remove(identity, refused);
      bearer = null;
    } else if (refused != null && headerAuth()) {
      bearer = null;
    }
  }

  SessionState snapshot() {
    return new SessionState(settings.basicAuth() || headerAuth() ? bearer : null, cookies);
  }

  @Override
  public FlightClientMiddleware onCallStarted(CallInfo info) {
    return new Middleware(info.method());
  }

  private void tokenReceived(String token) {
    if (settings.basicAuth() && !token.equals(bearer)) {
      bearer = token;
      TOKENS.put(identity, token);
      LOG.debug("Received a bearer token from {}", settings.uri());
    } else if (headerAuth() && !token.equals(bearer)) {
      bearer = token;
      LOG.debug("Received a session token from {}", settings.uri());
    }
  }

  private void cookieReceived(String header) {
    List<HttpCookie> parsed;
    try {
      parsed = HttpCookie.parse(header);
    } catch (IllegalArgumentException e) {
      // Neither the header nor the parser's message is logged: both hold the cookie's value.
      LOG.debug("Ignored a set-cookie header from {} that could not be parsed", settings.uri());
      return;
    }
    for (HttpCookie cookie : parsed) {
      if (cookie.getMaxAge() == 0) {
        cookies.remove(cookie.getName());
      } else {
        cookies.put(cookie.getName(), cookie.getValue());
      }
      LOG.debug("Received cookie '{}' from {}", cookie.getName(), settings.uri());
    }
  }

  private final class Middleware implements FlightClientMiddleware {
    private final FlightMethod method;

    Middleware(FlightMethod method) {
      this.method = method;
    }

    @Override
    public void onBeforeSendingHeaders(CallHeaders outgoing) {
      // A handshake carries the basic credentials of its call option instead.
      String token = bearer;
      for (Map.Entry<String, String> header : settings.headers().entrySet()) {
        // Option header.authorization opens the session; once the server answered with a bearer
        // token (Deephaven's session token, say), calls carry that instead, and so stay in the
        // server session that issued their tickets.
        if (!(header.getKey().equals("authorization") && token != null)) {
          outgoing.insert(header.getKey(), header.getValue());
        }
      }
      if (token != null && method != FlightMethod.HANDSHAKE) {
        outgoing.insert("authorization", "Bearer " + token);
      }
      if (!cookies.isEmpty()) {
        StringBuilder cookie = new StringBuilder();
        for (Map.Entry<String, String> c : cookies.entrySet()) {
          if (cookie.length() > 0) {
            cookie.append("; ");
          }
          cookie.append(c.getKey()).append('=').append(c.getValue());
        }
        outgoing.insert("cookie", cookie.toString());
      }
    }

    @Override
    public void onHeadersReceived(CallHeaders incoming) {
      if (incoming.containsKey("set-cookie")) {
        for (String header : incoming.getAll("set-cookie")) {
          cookieReceived(header);
        }
      }
      String authorization = incoming.get("authorization");
      if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
        tokenReceived(authorization.substring(7).trim());
      }
    }

    @Override
    public void onCallCompleted(CallStatus status) {}
  }
}
