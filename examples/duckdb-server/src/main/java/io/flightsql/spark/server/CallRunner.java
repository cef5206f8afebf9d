package io.flightsql.spark.server;

import com.google.protobuf.ByteString;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutUpdateResult;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the producer's command families share: running a call as a tracked call (so that shutdown
 * waits for it) on the DuckDB connection its transaction names, giving a call Arrow memory of its
 * own, answering a DoPut, and the statuses of failures.
 *
 * <p>Thread-safe. The allocator belongs to the producer; this class only draws from it.
 */
final class CallRunner {

  private static final Logger LOG = LoggerFactory.getLogger(CallRunner.class);

  private static final AtomicLong CALL_ALLOCATOR_IDS = new AtomicLong();

  private final BufferAllocator allocator;
  private final DuckDbTransactions transactions;
  private final CallTracker calls = new CallTracker();

  CallRunner(BufferAllocator allocator, DuckDbTransactions transactions) {
    this.allocator = allocator;
    this.transactions = transactions;
  }

  /** A call's work on a DuckDB connection, which may fail on DuckDB's side. */
  interface ConnectionBody<T> {
    T run(DuckDbTransactions.Lease lease) throws SQLException;
  }

  /** A call's work with Arrow memory of its own. */
  interface AllocatorBody<T> {
    T run(BufferAllocator callAllocator) throws SQLException;
  }

  /** The producer's allocator, for memory that outlives the call (bound parameters, schemas). */
  BufferAllocator allocator() {
    return allocator;
  }

  /**
   * Runs {@code body} as a tracked call.
   *
   * @throws FlightRuntimeException UNAVAILABLE once shutdown has begun
   */
  <T> T track(CallTracker.Body<T> body) throws SQLException {
    return calls.track(body);
  }

  /**
   * Runs a tracked call on the connection of {@code transaction} (empty: a connection of its own,
   * whose default catalog and schema are {@code defaults}). A DuckDB error is noted in the
   * transaction, whose commit reports it if DuckDB aborted the transaction because of it.
   */
  <T> T withConnection(SessionDefaults defaults, ByteString transaction, ConnectionBody<T> body)
      throws SQLException {
    return calls.track(
        () -> {
          try (DuckDbTransactions.Lease lease = transactions.lease(transaction, defaults)) {
            try {
              return body.run(lease);
            } catch (SQLException e) {
              lease.failed(e);
              throw e;
            }
          }
        });
  }

  /**
   * Runs {@code body} with an allocator of its own, whose closing checks that the call freed every
   * buffer: a leak fails the call that caused it, rather than the server's shutdown.
   */
  <T> T withCallAllocator(String kind, AllocatorBody<T> body) throws SQLException {
    try (BufferAllocator callAllocator =
        allocator.newChildAllocator(
            kind + "-" + CALL_ALLOCATOR_IDS.incrementAndGet(), 0, Long.MAX_VALUE)) {
      return body.run(callAllocator);
    }
  }

  /**
   * Refuses new calls and waits up to {@code timeout} for running ones to end.
   *
   * @return the number of calls still running when the wait ended
   */
  int closeAndAwait(Duration timeout) throws InterruptedException {
    return calls.closeAndAwait(timeout);
  }

  /** Sends a DoPut's update count as its one result, and completes the call. */
  void sendUpdateCount(StreamListener<PutResult> ackStream, long count) {
    sendResult(
        ackStream, DoPutUpdateResult.newBuilder().setRecordCount(count).build().toByteArray());
  }

  /** Sends {@code metadata} as the DoPut's one result, and completes the call. */
  void sendResult(StreamListener<PutResult> ackStream, byte[] metadata) {
    try (ArrowBuf buffer = allocator.buffer(metadata.length)) {
      buffer.writeBytes(metadata);
      ackStream.onNext(PutResult.metadata(buffer));
    }
    ackStream.onCompleted();
  }

  /** The Arrow schema of a query's result, with DuckDB's message if DuckDB refuses the query. */
  Schema schema(DuckDBConnection connection, String sql) throws SQLException {
    try {
      return DuckDbDatabase.arrowSchema(connection, sql, allocator);
    } catch (SQLException e) {
      throw DuckDbDatabase.queryError(connection, sql, e);
    }
  }

  /** The default catalog and schema of the call's session; none without sessions. */
  static SessionDefaults defaults(CallContext context) {
    DuckDbSessions.Call call = context.getMiddleware(DuckDbSessions.KEY);
    return call == null ? SessionDefaults.NONE : call.session().defaults();
  }

  /** The transaction a command names, or empty for none. */
  static ByteString transactionId(boolean present, ByteString id) {
    return present ? id : ByteString.EMPTY;
  }

  /** DuckDB refused the client's SQL: INVALID_ARGUMENT with DuckDB's own message. */
  static FlightRuntimeException queryFailed(Exception e) {
    LOG.info("Query failed: {}", e.getMessage());
    return CallStatus.INVALID_ARGUMENT
        .withDescription(e.getMessage())
        .withCause(e)
        .toRuntimeException();
  }

  static FlightRuntimeException unsupported(String feature) {
    return CallStatus.UNIMPLEMENTED
        .withDescription("Not supported by the " + DuckDbSqlInfo.SERVER_NAME + ": " + feature)
        .toRuntimeException();
  }
}
