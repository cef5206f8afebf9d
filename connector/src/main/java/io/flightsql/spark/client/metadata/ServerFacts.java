package io.flightsql.spark.client.metadata;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightChannels;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the connector has learnt about one server, as one user sees it, so that planning a read does
 * not ask again: what the server said of itself (GetSqlInfo, and the quoting probe where it was
 * needed), which optional calls it lacks (UNIMPLEMENTED) or was seen to answer, and which pushed
 * queries it takes. One cache per kind of fact, all with the same key and the same expiry:
 *
 * <ul>
 *   <li>the key is the server's address, the transport settings and the credentials, as a
 *       fingerprint ({@link ConnectionSettings#identityFingerprint()}): what one user was refused
 *       says nothing of another, and no key holds a secret;
 *   <li>a fact is kept for {@value #EXPIRY_MINUTES} minutes after it was learnt, and only while the
 *       connection it was learnt over lasts: a new connection to the address (a restarted or
 *       upgraded server, or another one on the port) learns again;
 *   <li>at most {@value #MAX_ENTRIES} entries of each kind, the least recently used dropped first.
 * </ul>
 *
 * Thread-safe; two threads that miss at once may both ask the server.
 */
public final class ServerFacts {
  static final long EXPIRY_MINUTES = 10;
  static final long MAX_ENTRIES = 1_000;

  private static final Cache<String, Fact<ServerCapabilities>> CAPABILITIES = newCache();
  private static final Cache<Question, Fact<Boolean>> CALLS_LACKED = newCache();
  private static final Cache<Question, Fact<Boolean>> CALLS_ANSWERED = newCache();
  private static final Cache<Question, Fact<Boolean>> QUERIES_TAKEN = newCache();

  private final ConnectionSettings settings;
  private final String server;

  private ServerFacts(ConnectionSettings settings) {
    this.settings = settings;
    this.server = settings.identityFingerprint();
  }

  /** The facts about the server of option {@code uri}, as the user of {@code settings} sees it. */
  public static ServerFacts of(ConnectionSettings settings) {
    return new ServerFacts(settings);
  }

  /**
   * What the server said of itself, remembered, or asked with {@code ask} (outside any lock) and
   * remembered.
   */
  public ServerCapabilities capabilities(Supplier<ServerCapabilities> ask) {
    ServerCapabilities known = current(CAPABILITIES.getIfPresent(server));
    if (known != null) {
      return known;
    }
    ServerCapabilities asked = ask.get();
    // Taken after the answer, which has connected the channel.
    CAPABILITIES.put(server, new Fact<>(asked, connection()));
    return asked;
  }

  /** Whether the server answered {@code rpc} with UNIMPLEMENTED. */
  public boolean lacks(String rpc) {
    return Boolean.TRUE.equals(current(CALLS_LACKED.getIfPresent(new Question(server, rpc))));
  }

  /** Remembers that the server does not implement {@code rpc}. */
  public void noteLacking(String rpc) {
    CALLS_LACKED.put(new Question(server, rpc), new Fact<>(true, connection()));
  }

  /** Whether the server was seen to answer {@code rpc}. */
  public boolean answers(String rpc) {
    return Boolean.TRUE.equals(current(CALLS_ANSWERED.getIfPresent(new Question(server, rpc))));
  }

  /** Remembers that the server implements {@code rpc}. */
  public void noteAnswering(String rpc) {
    CALLS_ANSWERED.put(new Question(server, rpc), new Fact<>(true, connection()));
  }

  /**
   * Whether the server takes {@code sql}: the remembered answer, or {@code tryIt}'s, remembered
   * unless it is null (no answer, such as a server out of reach: taken as a refusal this time
   * only).
   */
  public boolean takes(String sql, Supplier<Boolean> tryIt) {
    Question question = new Question(server, sql);
    Boolean known = current(QUERIES_TAKEN.getIfPresent(question));
    if (known != null) {
      return known;
    }
    Boolean taken = tryIt.get();
    if (taken == null) {
      return false;
    }
    QUERIES_TAKEN.put(question, new Fact<>(taken, connection()));
    return taken;
  }

  /** Forgets every fact about every server; for tests. */
  public static void forgetAll() {
    CAPABILITIES.invalidateAll();
    CALLS_LACKED.invalidateAll();
    CALLS_ANSWERED.invalidateAll();
    QUERIES_TAKEN.invalidateAll();
  }

  private long connection() {
    return FlightChannels.connection(settings.uri(), settings);
  }

  /** The fact's value while the connection it was learnt over lasts; null otherwise. */
  private <T> T current(Fact<T> fact) {
    return fact != null && fact.connection == connection() ? fact.value : null;
  }

  private static <K, V> Cache<K, V> newCache() {
    return CacheBuilder.newBuilder()
        .expireAfterWrite(EXPIRY_MINUTES, TimeUnit.MINUTES)
        .maximumSize(MAX_ENTRIES)
        .build();
  }

  /** A value and the connection (see {@link FlightChannels#connection}) it was learnt over. */
  private static final class Fact<T> {
    final T value;
    final long connection;

    Fact(T value, long connection) {
      this.value = value;
      this.connection = connection;
    }
  }

  /** A server (its fingerprint) and what was asked of it: a call's name, or a query. */
  private static final class Question {
    final String server;
    final String asked;

    Question(String server, String asked) {
      this.server = server;
      this.asked = asked;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Question
          && ((Question) o).server.equals(server)
          && ((Question) o).asked.equals(asked);
    }

    @Override
    public int hashCode() {
      return Objects.hash(server, asked);
    }
  }
}
