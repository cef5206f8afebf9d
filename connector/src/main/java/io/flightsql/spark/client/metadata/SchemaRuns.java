package io.flightsql.spark.client.metadata;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.KeptStreams;
import io.flightsql.spark.client.transport.SessionState;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;

/**
 * Queries run to learn their schema, on servers that give it no other way (no GetSchema, no schema
 * with a prepared statement), kept briefly for the read of the same query that follows, so that the
 * query does not run twice: the FlightInfo of the run (which the read plans with instead of asking
 * again), the token and cookies of the session that ran it (its tickets may belong to that server
 * session), and where the schema came from the head of the first stream, that stream, still open
 * ({@link KeptStreams}). A run is taken once, by the read whose SQL, server and credentials are the
 * same, within {@link KeptStreams#LIFE_MILLIS}; after that, or when the read sends other SQL, it is
 * dropped and its stream closed. Thread-safe.
 */
public final class SchemaRuns {
  private static final Cache<Key, Run> RUNS =
      CacheBuilder.newBuilder()
          .expireAfterWrite(KeptStreams.LIFE_MILLIS, TimeUnit.MILLISECONDS)
          .maximumSize(ServerFacts.MAX_ENTRIES)
          .build();

  private SchemaRuns() {}

  /** What a schema inference may keep of a query it runs, for the read that follows. */
  public enum Keep {
    /** Nothing: the query is only being looked at (a probe, a join's schema). */
    NOTHING,
    /** Its FlightInfo, where no ticket of it was read: the read may happen in another JVM. */
    PLAN,
    /** Its FlightInfo and the stream read for the schema: the read happens in this JVM. */
    PLAN_AND_STREAM
  }

  /**
   * A query's run: its FlightInfo, the state of the session that ran it, when, and whether its
   * first endpoint's stream is kept open.
   */
  public static final class Run {
    private final FlightInfo info;
    private final SessionState state;
    private final long ranAtMillis;
    private final boolean streamKept;

    Run(FlightInfo info, SessionState state, long ranAtMillis, boolean streamKept) {
      this.info = info;
      this.state = state;
      this.ranAtMillis = ranAtMillis;
      this.streamKept = streamKept;
    }

    public FlightInfo info() {
      return info;
    }

    /** The token and cookies of the session that ran the query. */
    public SessionState state() {
      return state;
    }

    public long ranAtMillis() {
      return ranAtMillis;
    }

    /** Whether its first endpoint's stream is kept open ({@link KeptStreams}). */
    boolean streamKept() {
      return streamKept;
    }
  }

  static void keep(ConnectionSettings settings, String sql, Run run) {
    RUNS.put(new Key(settings.identityFingerprint(), sql), run);
  }

  /** The run of {@code sql} kept for its read, which the caller then owns; empty where none is. */
  public static Optional<Run> take(ConnectionSettings settings, String sql) {
    return Optional.ofNullable(RUNS.asMap().remove(new Key(settings.identityFingerprint(), sql)));
  }

  /** Drops the run of {@code sql}, closing its kept stream: the read sends other SQL. */
  public static void discard(ConnectionSettings settings, String sql) {
    take(settings, sql).ifPresent(run -> discardStream(settings, run));
  }

  /** Closes the run's kept stream, if any, which no reader will claim. */
  static void discardStream(ConnectionSettings settings, Run run) {
    if (run.streamKept()) {
      for (FlightEndpoint endpoint : run.info().getEndpoints()) {
        KeptStreams.discard(settings, endpoint.getTicket());
      }
    }
  }

  /** A server identity and the SQL sent. */
  private static final class Key {
    private final String server;
    private final String sql;

    Key(String server, String sql) {
      this.server = server;
      this.sql = sql;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key && ((Key) o).server.equals(server) && ((Key) o).sql.equals(sql);
    }

    @Override
    public int hashCode() {
      return Objects.hash(server, sql);
    }
  }
}
