package io.flightsql.spark.server;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.RequestContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cookie-based client sessions, when the server has them turned on: a call without a valid {@value
 * #COOKIE} cookie gets a new session, whose id the response sets as that cookie; a client that
 * sends the cookie back stays in its session. A session holds the options set by SetSessionOptions
 * ({@link SessionDefaults}: the default catalog and schema of its queries) until CloseSession.
 *
 * <p>Session ids are 32 random bytes (base64url), so they cannot be guessed. The server keeps the
 * {@value #MAX_SESSIONS} most recently used sessions and forgets older ones, so that clients that
 * never send cookies back (each of their calls starts a session) cannot exhaust its memory; a
 * forgotten session's cookie simply starts a new session.
 *
 * <p>Thread-safe.
 */
final class DuckDbSessions implements FlightServerMiddleware.Factory<DuckDbSessions.Call> {

  private static final Logger LOG = LoggerFactory.getLogger(DuckDbSessions.class);

  static final String COOKIE = "flightsql_session";

  static final FlightServerMiddleware.Key<Call> KEY = FlightServerMiddleware.Key.of(COOKIE);

  private static final int MAX_SESSIONS = 10_000;

  private static final SecureRandom RANDOM = new SecureRandom();

  /** Sessions by id, least recently used first; guarded by itself. */
  private final Map<String, Session> sessions =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Session> eldest) {
          return size() > MAX_SESSIONS;
        }
      };

  @Override
  public Call onCallStarted(CallInfo info, CallHeaders incoming, RequestContext context) {
    String id = cookie(incoming);
    Session session = null;
    if (id != null) {
      synchronized (sessions) {
        session = sessions.get(id);
      }
    }
    boolean created = session == null;
    if (created) {
      session = create();
    }
    return new Call(this, session, created);
  }

  private Session create() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    Session session = new Session(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    synchronized (sessions) {
      sessions.put(session.id, session);
    }
    LOG.debug("Session {} started", session.label());
    return session;
  }

  private boolean close(Session session) {
    synchronized (sessions) {
      return sessions.remove(session.id) != null;
    }
  }

  /** The session cookie's value among the request's cookies, or null. */
  static String cookie(CallHeaders headers) {
    if (!headers.containsKey("cookie")) {
      return null;
    }
    for (String header : headers.getAll("cookie")) {
      for (String pair : header.split(";")) {
        int equals = pair.indexOf('=');
        if (equals > 0 && pair.substring(0, equals).trim().equals(COOKIE)) {
          String value = pair.substring(equals + 1).trim();
          return value.isEmpty() ? null : value;
        }
      }
    }
    return null;
  }

  /** One client's session: its id and the options that SetSessionOptions set. */
  static final class Session {
    private final String id;
    private final ByteString digest;
    private SessionDefaults defaults = SessionDefaults.NONE; // guarded by this

    private Session(String id) {
      this.id = id;
      this.digest = digest(id);
    }

    /**
     * What tickets carry to name the session they belong to: a digest of the id, not the id, so
     * that a ticket seen in a log does not hand the session over.
     */
    ByteString digest() {
      return digest;
    }

    synchronized SessionDefaults defaults() {
      return defaults;
    }

    synchronized void defaults(SessionDefaults defaults) {
      this.defaults = defaults;
    }

    /** The start of the id, enough to follow a session through the log. */
    String label() {
      return id.substring(0, 6) + "…";
    }

    private static ByteString digest(String id) {
      try {
        byte[] hash =
            MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
        return ByteString.copyFrom(hash, 0, 16);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("Every Java runtime has SHA-256", e);
      }
    }
  }

  /** One call's session, and the cookie that its response sets. */
  static final class Call implements FlightServerMiddleware {
    private final DuckDbSessions sessions;
    private final Session session;
    private final boolean created;
    private volatile boolean closed;

    private Call(DuckDbSessions sessions, Session session, boolean created) {
      this.sessions = sessions;
      this.session = session;
      this.created = created;
    }

    Session session() {
      return session;
    }

    /**
     * Ends the session (CloseSession): later calls with its cookie start a new one, and this call's
     * response tells the client to drop the cookie.
     *
     * @return whether the session was still open
     */
    boolean closeSession() {
      closed = true;
      boolean open = sessions.close(session);
      LOG.debug("Session {} closed", session.label());
      return open;
    }

    @Override
    public void onBeforeSendingHeaders(CallHeaders outgoing) {
      if (closed) {
        outgoing.insert("set-cookie", COOKIE + "=; Max-Age=0; Path=/");
      } else if (created) {
        outgoing.insert("set-cookie", COOKIE + "=" + session.id + "; Path=/");
      }
    }

    @Override
    public void onCallCompleted(CallStatus status) {}

    @Override
    public void onCallErrored(Throwable error) {}
  }
}
