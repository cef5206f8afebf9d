package io.flightsql.spark.client.transport;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightMethod;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The credentials one {@code FlightSqlSession} sends with every call, and, per server it calls
 * ({@link #forTarget}), a Flight client middleware that sends them: the headers of options {@code
 * header.*}, {@code authorization: Bearer} with the fixed token or the one basic authentication
 * obtained, and the cookies of the session's jar that go to that server. The middleware also keeps
 * what the server answers: {@code set-cookie} headers, stored for the host that sent them ({@link
 * CookieJar}), and a (new) bearer token. Thread-safe: a gRPC callback thread writes what a task
 * thread reads.
 *
 * <p>Arrow's own {@code ClientCookieMiddleware} keeps cookies in a factory that cannot be seeded or
 * read, sends every cookie to every host, and a session cookie must travel from the driver to
 * executors, hence this class.
 */
final class CallState {
  private static final Logger LOG = LoggerFactory.getLogger(CallState.class);

  /**
   * Bearer tokens obtained by basic authentication in this JVM, by identity fingerprint, so that
   * every session of a job does not log in again.
   */
  private static final ConcurrentMap<String, String> TOKENS = new ConcurrentHashMap<>();

  private final ConnectionSettings settings;
  private final String identity;
  private volatile String bearer;
  private final CookieJar cookies;

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
    cookies = new CookieJar(seed.cookies());
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
    return new SessionState(
        settings.basicAuth() || headerAuth() ? bearer : null,
        cookies.snapshot(System.currentTimeMillis()));
  }

  /** The middleware factory of the calls to {@code target}, which get the cookies that go there. */
  FlightClientMiddleware.Factory forTarget(FlightUri target) {
    return info -> new Middleware(target, info.method());
  }

  /**
   * The path of a Flight method's gRPC calls, which cookie paths match: {@code /<service>/DoGet}.
   */
  static String path(FlightMethod method) {
    StringBuilder name = new StringBuilder();
    for (String word : method.name().split("_")) {
      name.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
    }
    return "/" + FlightServiceGrpc.SERVICE_NAME + "/" + name;
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

  private void cookieReceived(FlightUri from, String path, String header) {
    List<String> names;
    try {
      names = cookies.receive(from, path, header, System.currentTimeMillis());
    } catch (IllegalArgumentException e) {
      // Neither the header nor the parser's message is logged: both hold the cookie's value.
      LOG.debug("Ignored a set-cookie header from {} that could not be parsed", from);
      return;
    }
    for (String name : names) {
      LOG.debug("Received cookie '{}' from {}", name, from);
    }
  }

  private final class Middleware implements FlightClientMiddleware {
    private final FlightUri target;
    private final FlightMethod method;
    private final String path;

    Middleware(FlightUri target, FlightMethod method) {
      this.target = target;
      this.method = method;
      this.path = path(method);
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
      String cookie = cookies.header(target, path, System.currentTimeMillis());
      if (cookie != null) {
        outgoing.insert("cookie", cookie);
      }
    }

    @Override
    public void onHeadersReceived(CallHeaders incoming) {
      if (incoming.containsKey("set-cookie")) {
        for (String header : incoming.getAll("set-cookie")) {
          cookieReceived(target, path, header);
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
