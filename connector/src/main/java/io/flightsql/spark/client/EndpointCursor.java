package io.flightsql.spark.client;

import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.Retries;
import io.flightsql.spark.client.transport.SessionState;
import io.flightsql.spark.client.transport.StreamClosing;
import io.flightsql.spark.client.transport.StreamWatch;
import io.flightsql.spark.client.transport.Warmup;
import java.time.Duration;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what one partition of a read holds, record batch by record batch: one endpoint of a query
 * planned elsewhere ({@link PlannedEndpoint}), or every endpoint of a query it plans itself, one
 * stream open at a time. It owns the whole life of those streams, so that its caller only looks at
 * each batch ({@link #root()}, {@link #dictionaries()}):
 *
 * <ul>
 *   <li>each endpoint's locations are tried in order;
 *   <li>a DoGet that fails with UNAVAILABLE before its stream's first batch is opened once more,
 *       once per cursor, after a pause (a server restarting between planning and reading), from the
 *       endpoint's other locations first;
 *   <li>each wait for a batch is bounded by option {@code streamIdleTimeout};
 *   <li>an endpoint that expired, or whose ticket the server refuses, is renewed or its query run
 *       again only where that gives the same rows, and otherwise fails saying why and what to do
 *       ({@link EndpointSequence}).
 * </ul>
 *
 * Owns a session (and so the allocator every stream allocates from), opened with the state of the
 * session that planned the query so that the server sees the same client; {@link #close()} releases
 * the stream, then the session. Not thread-safe: one per partition.
 */
public final class EndpointCursor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EndpointCursor.class);

  private final FlightSqlSession session;
  private final EndpointSequence endpoints;
  private final int partition;
  private final long idleTimeoutMillis;

  private boolean started;

  /** The open stream, or null before the first and once every stream is read. */
  private FlightStream stream;

  /** Record batches of {@link #stream} handed out; a stream is opened again only before any. */
  private int streamBatches;

  /** Whether this cursor has used its one reopening of a DoGet that failed with UNAVAILABLE. */
  private boolean retried;

  private EndpointCursor(
      ConnectionSettings settings,
      SessionState state,
      int partition,
      PlannedEndpoint planned,
      String query,
      Duration queryTimeout,
      PlanningCancellation cancellation) {
    Warmup.start();
    this.session = FlightSqlSession.open(settings, "partition-" + partition, state);
    this.endpoints =
        new EndpointSequence(session, partition, planned, query, queryTimeout, cancellation);
    this.partition = partition;
    this.idleTimeoutMillis = settings.streamIdleTimeoutMillis();
  }

  /**
   * A cursor over one endpoint planned elsewhere. Its query is run again (bounded by {@code
   * queryTimeout}, null for none, and cancelled when {@code cancellation} says so) only where the
   * endpoint cannot be read as planned and the query had one endpoint.
   *
   * @param state the token and cookies of the session that planned the query
   */
  public static EndpointCursor overEndpoint(
      ConnectionSettings settings,
      SessionState state,
      PlannedEndpoint endpoint,
      Duration queryTimeout,
      PlanningCancellation cancellation) {
    return new EndpointCursor(
        settings, state, endpoint.index(), endpoint, endpoint.query(), queryTimeout, cancellation);
  }

  /**
   * A cursor over every endpoint of {@code query}, which it plans when first moved, bounded by
   * {@code queryTimeout} (null for none) and cancelled when {@code cancellation} says so.
   *
   * @param state the token and cookies of the session the cursor continues
   * @param partition the partition it reads, for messages
   */
  public static EndpointCursor overQuery(
      ConnectionSettings settings,
      SessionState state,
      int partition,
      String query,
      Duration queryTimeout,
      PlanningCancellation cancellation) {
    return new EndpointCursor(settings, state, partition, null, query, queryTimeout, cancellation);
  }

  /**
   * Moves to the next record batch, opening the streams it needs; false once every stream is read.
   * The batch is in {@link #root()} until the next call.
   *
   * @throws FlightSqlConnectorException naming the call, the server and why it failed
   */
  public boolean next() {
    if (!started) {
      started = true;
      stream = nextStream();
    }
    while (stream != null) {
      FlightStream current = stream;
      boolean more;
      try (StreamWatch watch =
          StreamWatch.start(
              idleTimeoutMillis, () -> current.cancel("option 'streamIdleTimeout' passed", null))) {
        try {
          more = current.next();
        } catch (RuntimeException e) {
          if (watch.fired()) {
            throw idle(e);
          }
          if (mayRetry(e)) {
            reopenAfterUnavailable(e);
            continue;
          }
          throw FlightErrors.rpcFailed("DoGet", endpoints.target(), e);
        }
        if (watch.fired()) {
          throw idle(null);
        }
      }
      if (more) {
        streamBatches++;
        return true;
      }
      closeStream();
      stream = nextStream();
    }
    return false;
  }

  /**
   * The record batch {@link #next()} moved to. Each stream has a root of its own, refilled by each
   * of its batches: a root other than the last one means another stream, with other vectors.
   */
  public VectorSchemaRoot root() {
    return stream.getRoot();
  }

  /** The dictionaries of the current stream's dictionary-encoded columns. */
  public DictionaryProvider dictionaries() {
    return stream.getDictionaryProvider();
  }

  /** The server of the current stream; prints no secret. */
  public FlightUri server() {
    return endpoints.target();
  }

  /**
   * The error for the current record batch when it breaks the Arrow format, naming the server, the
   * batch and the stream: {@code [flightsql] DoGet failed for <server>: INTERNAL: record batch 3 of
   * partition 0 (endpoint 1 of 1) is malformed: <problem>}.
   */
  public FlightSqlConnectorException malformedBatch(String problem, Throwable cause) {
    return FlightErrors.failure(
        "DoGet",
        endpoints.target(),
        FlightStatusCode.INTERNAL,
        "record batch " + streamBatches + " of " + describe() + " is malformed: " + problem,
        "The connector checks every batch before Spark reads it, and this one breaks the Arrow"
            + " format: reading it would read memory outside the batch or return wrong values."
            + " The server, or something between it and Spark, sent it; report it to the"
            + " server's maintainers",
        cause);
  }

  /** {@code partition 3 (endpoint 4 of 8)}: what the cursor reads now, for messages. */
  public String describe() {
    return endpoints.describe();
  }

  /** Opens the next endpoint's stream; null when none is left. */
  private FlightStream nextStream() {
    FlightStream next = null;
    while (next == null && endpoints.advance()) {
      next = openWithRetry();
    }
    return next;
  }

  /**
   * Opens the current endpoint's stream; after UNAVAILABLE from every location, once more after a
   * pause. Null where the endpoint turned out to hold nothing (a query run again without
   * endpoints).
   */
  private FlightStream openWithRetry() {
    streamBatches = 0;
    try {
      try {
        return endpoints.open();
      } catch (FlightSqlConnectorException e) {
        if (!mayRetry(e)) {
          throw e;
        }
        try {
          return endpoints.open();
        } catch (FlightSqlConnectorException second) {
          second.addSuppressed(e);
          throw second;
        }
      }
    } catch (FlightSqlConnectorException e) {
      throw namingThePartition(e);
    }
  }

  /**
   * Whether a DoGet that failed may be tried again now: UNAVAILABLE or a reset stream ({@link
   * FlightErrors#isRetryable}), before any batch of the stream was handed out, and the cursor's one
   * retry not used yet. Waits before saying yes.
   */
  private boolean mayRetry(RuntimeException e) {
    if (retried || streamBatches > 0 || !FlightErrors.isRetryable(e)) {
      return false;
    }
    retried = true;
    LOG.warn(
        "Partition {}: DoGet failed with {} before any batch reached Spark; trying once more: {}",
        partition,
        FlightErrors.statusOf(e),
        e.getMessage());
    return Retries.pauseBeforeStreamRetry(endpoints.target());
  }

  /**
   * Opens the stream again after it failed with UNAVAILABLE before its first batch, from the
   * endpoint's other locations first.
   */
  private void reopenAfterUnavailable(RuntimeException failure) {
    FlightStream failed = stream;
    stream = null;
    StreamClosing.closeAfter(failure, failed);
    endpoints.tryLast(endpoints.target());
    try {
      stream = endpoints.open();
    } catch (FlightSqlConnectorException second) {
      second.addSuppressed(failure);
      throw namingThePartition(second);
    }
    if (stream == null) {
      stream = nextStream();
    }
  }

  /**
   * The session, which opens the stream, knows no partition: a stream that stayed silent from the
   * start is reported again naming this one.
   */
  private FlightSqlConnectorException namingThePartition(FlightSqlConnectorException e) {
    if (!"TIMED_OUT".equals(e.statusCode())
        || !String.valueOf(e.serverMessage()).contains("'streamIdleTimeout'")) {
      return e;
    }
    FlightSqlConnectorException named =
        StreamWatch.idle(
            "DoGet",
            endpoints.target(),
            "waiting for the first message of " + describe(),
            idleTimeoutMillis,
            e.getCause());
    for (Throwable suppressed : e.getSuppressed()) {
      named.addSuppressed(suppressed);
    }
    return named;
  }

  private FlightSqlConnectorException idle(RuntimeException cause) {
    String what =
        "reading " + describe() + " after " + streamBatches + " record batch(es) of its stream";
    return StreamWatch.idle("DoGet", endpoints.target(), what, idleTimeoutMillis, cause);
  }

  /** Closes a stream that was read to its end. */
  private void closeStream() {
    FlightStream done = stream;
    stream = null;
    try {
      StreamClosing.close(done);
    } catch (Exception e) {
      throw new IllegalStateException("Closing the Flight stream failed: " + e, e);
    }
  }

  /**
   * Releases the stream, then the session and its allocator, which fails if any Arrow buffer is
   * still held. A killed task's thread is interrupted when this runs, or while it runs; the
   * stream's drain would be cut short and leak its buffers, so the interrupt is set aside while
   * closing ({@link StreamClosing}) and restored after.
   */
  @Override
  public void close() {
    boolean interrupted = Thread.interrupted();
    try {
      RuntimeException failure = null;
      try {
        if (stream != null) {
          FlightStream open = stream;
          stream = null;
          StreamClosing.close(open);
        }
      } catch (Exception e) {
        failure = new IllegalStateException("Closing the Flight stream failed: " + e, e);
      }
      try {
        session.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
      if (failure != null) {
        throw failure;
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
