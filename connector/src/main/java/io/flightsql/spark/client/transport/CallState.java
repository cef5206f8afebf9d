package io.flightsql.spark.client.transport;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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
 * header.*}, {@code authorization: Bearer} with the fixed token or the one a server handed back,
 * and the cookies of the session's jar that go to that server. The middleware also keeps what the
 * server answers: {@code set-cookie} headers, stored for the host that sent them ({@link
 * CookieJar}), and a (new) bearer token, kept for that server alone. Thread-safe: a gRPC callback
 * thread writes what a task thread reads.
 *
 * <p>Credentials go only to the host of option {@code uri} and the hosts of option {@code
 * credentialHosts} ({@link CredentialHosts}); a call to any other host carries none of them, only
 * the cookies that host set itself. {@link EndpointStreams} refuses such a host before calling it
 * when the connection has credentials.
 *
 * <p>Arrow's own {@code ClientCookieMiddleware} keeps cookies in a factory that cannot be seeded or
 * read, sends every cookie to every host, and a session cookie must travel from the driver to
 * executors, hence this class.
 */
final class CallState {
  private static final Logger LOG = LoggerFactory.getLogger(CallState.class);

  /**
   * Bearer tokens obtained by basic authentication in this JVM, by the identity's fingerprint and
   * the server that issued them, so that every session of a job does not log in again. A token
   * expires here after an hour; a server that refuses one sooner has it forgotten at once.
   */
  private static final Cache<String, String> TOKENS =
      CacheBuilder.newBuilder().maximumSize(1_000).expireAfterWrite(1, TimeUnit.HOURS).build();

  private final ConnectionSettings settings;
  private final FlightUri server;
  private final String identity;

  /** The tokens servers handed back, by server: basic login, or a session token. */
  private final Map<FlightUri, String> tokens = new ConcurrentHashMap<>();

  /** Servers other than {@code uri}'s that refused its token, and so get their own. */
  private final Set<FlightUri> ownToken = ConcurrentHashMap.newKeySet();

  private final CookieJar cookies;

  CallState(ConnectionSettings settings, SessionState seed) {
    this.settings = settings;
    this.server = settings.uri();
    this.identity = settings.identityFingerprint();
    if (settings.token() == null && seed.bearerToken() != null) {
      // The server session the driver opened, so that executors redeem its tickets in it.
      tokens.put(server, seed.bearerToken());
    }
    cookies = new CookieJar(seed.cookies());
  }

  ConnectionSettings settings() {
    return settings;
  }

  /** Whether calls to {@code target} may carry the connection's credentials. */
  boolean mayCarryCredentials(FlightUri target) {
    return settings.credentialHosts().allows(server, target);
  }

  /** Whether a basic-auth session still has to log in to {@code target} before calling it. */
  boolean needsLogin(FlightUri target) {
    return settings.basicAuth() && mayCarryCredentials(target) && bearerFor(target) == null;
  }

  /**
   * Whether option {@code header.authorization} opens the session, and the server may answer with a
   * bearer token (a session token) for the calls after it.
   */
  private boolean headerAuth() {
    return settings.headers().containsKey("authorization");
  }

  /** Whether tokens a server hands back are kept: after basic login, or a header's session. */
  private boolean keepsTokens() {
    return settings.token() == null && (settings.basicAuth() || headerAuth());
  }

  /**
   * The bearer token of a call to {@code target}: the fixed one, the one {@code target} handed
   * back, else the one of the server of {@code uri} (the session a coordinator opened, which its
   * workers named in {@code credentialHosts} may take), unless {@code target} refused that one.
   */
  private String bearerFor(FlightUri target) {
    if (settings.token() != null) {
      return settings.token();
    }
    String own = tokens.get(target);
    if (own == null && settings.basicAuth()) {
      own = TOKENS.getIfPresent(key(target));
      if (own != null) {
        tokens.put(target, own);
      }
    }
    if (own != null || target.equals(server) || ownToken.contains(target)) {
      return own;
    }
    return bearerFor(server);
  }

  private String key(FlightUri target) {
    return identity + "@" + target;
  }

  /** Forgets a token {@code target} refused, here and in the JVM's cache. */
  void tokenRefused(FlightUri target) {
    if (!keepsTokens()) {
      return;
    }
    String refused = bearerFor(target);
    tokens.remove(target);
    if (refused != null) {
      TOKENS.asMap().remove(key(target), refused);
    }
    if (!target.equals(server)) {
      ownToken.add(target);
    }
  }

  SessionState snapshot() {
    return new SessionState(
        keepsTokens() ? bearerFor(server) : null, cookies.snapshot(System.currentTimeMillis()));
  }

  /** The middleware factory of the calls to {@code target}, which get the cookies that go there. */
  FlightClientMiddleware.Factory forTarget(FlightUri target) {
    return info -> new Middleware(target, info.method(), mayCarryCredentials(target));
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

  private void tokenReceived(FlightUri from, String token) {
    if (keepsTokens() && !token.equals(tokens.put(from, token))) {
      if (settings.basicAuth()) {
        TOKENS.put(key(from), token);
      }
      LOG.debug("Received a bearer token from {}", from);
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
    private final boolean credentials;

    Middleware(FlightUri target, FlightMethod method, boolean credentials) {
      this.target = target;
      this.method = method;
      this.path = path(method);
      this.credentials = credentials;
    }

    @Override
    public void onBeforeSendingHeaders(CallHeaders outgoing) {
      long now = System.currentTimeMillis();
      if (!credentials) {
        // Only what this host set itself goes back to it.
        String own = cookies.ownCookiesHeader(target, path, now);
        if (own != null) {
          outgoing.insert("cookie", own);
        }
        return;
      }
      // A handshake carries the basic credentials of its call option instead.
      String token = bearerFor(target);
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
      String cookie = cookies.header(target, path, now);
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
      if (credentials
          && authorization != null
          && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
        tokenReceived(target, authorization.substring(7).trim());
      }
    }

    @Override
    public void onCallCompleted(CallStatus status) {}
  }
}
