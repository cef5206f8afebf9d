package io.flightsql.spark.client.transport;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DoGet streams opened to learn a query's schema and kept open, briefly, for the read of the same
 * ticket that follows in this JVM: on a server whose tickets can be read only once, or that runs
 * the query when its ticket is read, reading the ticket again would fail or run the query twice.
 * Each kept stream has an allocator and a client of its own, so that it outlives the session that
 * opened it. Until a reader {@link #claim}s it the registry owns it, and closes it (cancelling its
 * call) once it has waited {@value #LIFE_MILLIS} ms unclaimed; a claimed stream belongs to its
 * reader.
 *
 * <p>Keyed by the server's identity (address, transport settings, credentials: {@link
 * ConnectionSettings#identityFingerprint()}) and the ticket's bytes: only the same user reading the
 * same ticket of the same server claims it. Thread-safe.
 */
public final class KeptStreams {
  private static final Logger LOG = LoggerFactory.getLogger(KeptStreams.class);

  /** How long a kept stream waits for its reader. */
  public static final long LIFE_MILLIS = 5_000;

  private static final ConcurrentMap<Key, Kept> KEPT = new ConcurrentHashMap<>();

  private static final ScheduledExecutorService REAPER =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "flightsql-kept-streams");
            thread.setDaemon(true);
            return thread;
          });

  private KeptStreams() {}

  /**
   * An open stream with the client and allocator it reads with. {@link #close()} closes all three;
   * a reader that closed the stream itself calls {@link #release()} for the other two.
   */
  public static final class Kept implements AutoCloseable {
    private final FlightStream stream;
    private final FlightSqlClientWithOptions client;
    private final BufferAllocator allocator;

    Kept(FlightStream stream, FlightSqlClientWithOptions client, BufferAllocator allocator) {
      this.stream = stream;
      this.client = client;
      this.allocator = allocator;
    }

    public FlightStream stream() {
      return stream;
    }

    /** Closes the client and the allocator, once the stream is closed. */
    public void release() {
      try {
        client.close();
      } finally {
        Allocators.noteClosing(allocator);
        allocator.close();
      }
    }

    /** Closes the stream (cancelling it on the server if unread), the client and the allocator. */
    @Override
    public void close() {
      try {
        StreamClosing.close(stream);
      } catch (Exception e) {
        LOG.debug("Closing a kept stream failed: {}", e.toString());
      } finally {
        release();
      }
    }
  }

  /** Keeps {@code stream}, the ticket's, for its reader; closed if none claims it in time. */
  public static void keep(ConnectionSettings settings, Ticket ticket, Kept stream) {
    Key key = new Key(settings.identityFingerprint(), ticket);
    Kept before = KEPT.put(key, stream);
    if (before != null) {
      before.close();
    }
    REAPER.schedule(
        () -> {
          if (KEPT.remove(key, stream)) {
            LOG.debug("A stream kept for a read of {} was not claimed; closed", settings.uri());
            stream.close();
          }
        },
        LIFE_MILLIS,
        TimeUnit.MILLISECONDS);
  }

  /** The kept stream of the ticket, which the caller then owns; empty where none is kept. */
  public static Optional<Kept> claim(ConnectionSettings settings, Ticket ticket) {
    return Optional.ofNullable(KEPT.remove(new Key(settings.identityFingerprint(), ticket)));
  }

  /** Closes the ticket's kept stream, if any: nothing will read it. */
  public static void discard(ConnectionSettings settings, Ticket ticket) {
    claim(settings, ticket).ifPresent(Kept::close);
  }

  /**
   * Closes every stream no reader claimed, and says how many; for checks of leaked memory, which
   * would otherwise wait for their expiry.
   */
  public static int discardUnclaimed() {
    int closed = 0;
    for (Key key : KEPT.keySet()) {
      Kept kept = KEPT.remove(key);
      if (kept != null) {
        kept.close();
        closed++;
      }
    }
    return closed;
  }

  /** A server identity and a ticket. */
  private static final class Key {
    private final String server;
    private final ByteBuffer ticket;

    Key(String server, Ticket ticket) {
      this.server = server;
      this.ticket = ByteBuffer.wrap(ticket.getBytes().clone());
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key && ((Key) o).server.equals(server) && ((Key) o).ticket.equals(ticket);
    }

    @Override
    public int hashCode() {
      return Objects.hash(server, ticket);
    }
  }
}
