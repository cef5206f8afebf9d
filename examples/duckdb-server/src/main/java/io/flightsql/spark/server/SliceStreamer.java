package io.flightsql.spark.server;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.DoGetCompression;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams one {@link StatementSlice} to a DoGet client.
 *
 * <p>Every endpoint of a query runs the very same statement ({@link QuerySql#subquery}) and keeps
 * its own rows of the result: it drops the batches before its offset, cuts the batches at its
 * edges, and stops DuckDB as soon as it has its rows. Pushing the offset into the SQL instead
 * ({@code LIMIT n OFFSET k}) would let DuckDB choose a different plan per endpoint (top-N, late
 * materialisation), and plans that differ may order ties differently, so the slices would no longer
 * fit together.
 *
 * <p>Rows travel from DuckDB to gRPC without being copied in Java: DuckDB exports each batch
 * through the Arrow C data interface, and the batch's buffers are transferred into the root that
 * the listener sends. A call holds at most the batch being sent and the one being read.
 *
 * <p>Columns that DuckDB exports dictionary-encoded (ENUM, also inside lists, structs, maps and
 * unions) travel as Arrow IPC dictionaries: the root that is sent holds the index vectors, and the
 * reader of DuckDB's stream provides the dictionaries.
 */
final class SliceStreamer {

  private static final Logger LOG = LoggerFactory.getLogger(SliceStreamer.class);

  /** How long a client may leave the stream unread before the call gives up. */
  private static final Duration CLIENT_READ_TIMEOUT = Duration.ofMinutes(10);

  private static final AtomicLong CALL_IDS = new AtomicLong();

  private final BufferAllocator allocator;
  private final int batchRows;
  private final DoGetPacing pacing;

  /** The codec of every record batch sent; null to send them as they are. */
  private final CompressionCodec codec;

  SliceStreamer(BufferAllocator allocator, int batchRows, DoGetPacing pacing, CodecType codec) {
    this.allocator = allocator;
    this.batchRows = batchRows;
    this.pacing = pacing;
    this.codec = StreamCompression.codec(codec);
  }

  /** Starts the stream: its schema and dictionaries go out, and its batches will be compressed. */
  private void start(
      ServerStreamListener listener, VectorSchemaRoot out, DictionaryProvider dictionaries) {
    listener.start(out, dictionaries);
    if (codec != null) {
      DoGetCompression.compress(listener, out, codec);
    }
  }

  /** Streams the slice's rows, running its query on the lease's connection. */
  void stream(StatementSlice slice, DuckDbTransactions.Lease lease, ServerStreamListener listener) {
    BackpressureStrategy backpressure = new PollingBackpressure();
    backpressure.register(listener);
    listener.setOnCancelHandler(pacing::cancelled);
    String sql = QuerySql.subquery(slice.sql());
    long call = CALL_IDS.incrementAndGet();
    long sent = 0;
    int batches = 0;
    boolean completed = false;
    try (BufferAllocator callAllocator =
            allocator.newChildAllocator("doget-" + call, 0, Long.MAX_VALUE);
        PreparedStatement statement = lease.connection().prepareStatement(sql);
        ResultSet rows = statement.executeQuery();
        ArrowReader reader = DuckDbDatabase.arrowReader(rows, callAllocator, batchRows);
        VectorSchemaRoot out =
            VectorSchemaRoot.create(reader.getVectorSchemaRoot().getSchema(), callAllocator)) {
      VectorSchemaRoot in = reader.getVectorSchemaRoot();
      long toSkip = slice.offset();
      long remaining = slice.open() ? Long.MAX_VALUE : slice.limit();
      // Flight sends a stream's dictionaries (those of DuckDB's ENUM columns) once, right after the
      // schema, when the stream starts, whereas the C stream fills them in with each batch; so the
      // stream starts once the first batch is loaded. DuckDB exports an ENUM's whole dictionary
      // with every batch, so the first batch's dictionaries hold for the whole stream. Without a
      // batch, the dictionaries stay as the schema import created them, empty. Starting sends the
      // schema, so even an empty slice tells the client what it would contain.
      boolean loaded = remaining > 0 && reader.loadNextBatch();
      start(listener, out, reader);
      for (; loaded; loaded = remaining > 0 && reader.loadNextBatch()) {
        int count = in.getRowCount();
        if (toSkip >= count) {
          toSkip -= count;
          continue;
        }
        int from = (int) toSkip;
        int take = (int) Math.min(count - from, remaining);
        toSkip = 0;
        if (!clientReady(listener, backpressure, sent)) {
          return;
        }
        moveRows(in, out, from, take, count);
        listener.putNext();
        sent += take;
        remaining -= take;
        batches++;
        LOG.debug("DoGet #{} batch {}: {} rows ({} so far)", call, batches, take, sent);
      }
      listener.completed();
      completed = true;
      LOG.info(
          "DoGet #{} sent {} rows in {} batches (offset {}, limit {}) for SQL: {}",
          call,
          sent,
          batches,
          slice.offset(),
          slice.open() ? "none" : slice.limit(),
          QuerySql.abbreviate(slice.sql(), 500));
    } catch (SQLException | IOException e) {
      // DuckDB raises query errors at execute time, and data errors (a failed cast in row 10^6)
      // while the batches are exported: both are the client's query's fault.
      lease.failed(e);
      fail(listener, completed, CallStatus.INVALID_ARGUMENT, e);
    } catch (RuntimeException e) {
      fail(listener, completed, CallStatus.INTERNAL, e);
    }
  }

  /**
   * Streams one endpoint of a result computed in GetFlightInfo ({@link ComputedResults}): its
   * batches as they are, each freed once sent (and all of them if the stream ends early).
   */
  void streamComputed(ComputedResults.Slice slice, ServerStreamListener listener) {
    BackpressureStrategy backpressure = new PollingBackpressure();
    backpressure.register(listener);
    listener.setOnCancelHandler(pacing::cancelled);
    long call = CALL_IDS.incrementAndGet();
    List<ArrowRecordBatch> batches = slice.batches();
    long sent = 0;
    boolean completed = false;
    try (BufferAllocator callAllocator =
            allocator.newChildAllocator("doget-" + call, 0, Long.MAX_VALUE);
        VectorSchemaRoot out = VectorSchemaRoot.create(slice.schema(), callAllocator)) {
      VectorLoader loader = new VectorLoader(out);
      start(listener, out, null);
      for (int i = 0; i < batches.size(); i++) {
        if (!clientReady(listener, backpressure, sent)) {
          return;
        }
        try (ArrowRecordBatch batch = batches.set(i, null)) {
          loader.load(batch);
        }
        listener.putNext();
        sent += out.getRowCount();
      }
      listener.completed();
      completed = true;
      LOG.info(
          "DoGet #{} sent {} rows of a computed result in {} batches", call, sent, batches.size());
    } catch (RuntimeException e) {
      fail(listener, completed, CallStatus.INTERNAL, e);
    } finally {
      ComputedResults.closeAll(batches.stream().filter(Objects::nonNull).toList());
    }
  }

  /**
   * Streams a prepared query with parameters: the query once per bound parameter row, the results
   * one after the other in a single stream, as Flight SQL asks of a query whose parameters are
   * bound in batches. The stream's schema is that of the first row's result; every result must have
   * the same.
   */
  void streamPrepared(
      DuckDbPreparedStatements.Prepared prepared,
      ParameterBatches parameters,
      DuckDbTransactions.Lease lease,
      ServerStreamListener listener) {
    long call = CALL_IDS.incrementAndGet();
    ResultsStream results = new ResultsStream(listener);
    try (BufferAllocator callAllocator =
            allocator.newChildAllocator("doget-" + call, 0, Long.MAX_VALUE);
        ParameterRows rows =
            new ParameterRows(
                lease.connection(),
                QuerySql.subquery(prepared.sql()),
                prepared.parameterCount(),
                callAllocator);
        results) {
      long count;
      try (BatchReader reader = parameters.reader(callAllocator)) {
        count = rows.load(reader);
      }
      rows.forEachRow(count, execute -> results.send(execute, callAllocator));
      results.complete();
      LOG.info(
          "DoGet #{} sent {} rows for {} parameter rows of prepared SQL: {}",
          call,
          results.sent,
          count,
          QuerySql.abbreviate(prepared.sql(), 500));
    } catch (ClientGone e) {
      stopEarly(listener, e.why, results.sent);
    } catch (SQLException e) {
      lease.failed(e);
      fail(listener, results.completed, CallStatus.INVALID_ARGUMENT, e);
    } catch (RuntimeException e) {
      fail(listener, results.completed, CallStatus.INTERNAL, e);
    }
  }

  /** The one Flight stream that the results of a prepared query's executions go out on. */
  private final class ResultsStream implements AutoCloseable {
    private final ServerStreamListener listener;
    private final BackpressureStrategy backpressure = new PollingBackpressure();
    private VectorSchemaRoot out;
    long sent;
    boolean completed;

    ResultsStream(ServerStreamListener listener) {
      this.listener = listener;
      backpressure.register(listener);
    }

    /** Runs one execution and sends its rows; the first one starts the stream. */
    void send(PreparedStatement execute, BufferAllocator callAllocator) throws SQLException {
      try (ResultSet result = execute.executeQuery();
          ArrowReader reader = DuckDbDatabase.arrowReader(result, callAllocator, batchRows)) {
        VectorSchemaRoot in = reader.getVectorSchemaRoot();
        if (out == null) {
          checkNotDictionaryEncoded(in.getSchema());
          out = VectorSchemaRoot.create(in.getSchema(), callAllocator);
          start(listener, out, null);
        } else if (!in.getSchema().equals(out.getSchema())) {
          throw new SQLException(
              "The prepared query's result schema changes from one parameter row to the next: "
                  + out.getSchema()
                  + " became "
                  + in.getSchema());
        }
        while (reader.loadNextBatch()) {
          BackpressureStrategy.WaitResult ready =
              backpressure.waitForListener(CLIENT_READ_TIMEOUT.toMillis());
          if (ready != BackpressureStrategy.WaitResult.READY) {
            throw new ClientGone(ready);
          }
          int count = in.getRowCount();
          moveRows(in, out, 0, count, count);
          listener.putNext();
          sent += count;
        }
      } catch (IOException e) {
        throw new SQLException("Could not read DuckDB's result: " + e.getMessage(), e);
      }
    }

    void complete() throws SQLException {
      if (out == null) {
        throw new SQLException("No parameter rows are bound, so the query has no result");
      }
      listener.completed();
      completed = true;
    }

    @Override
    public void close() {
      if (out != null) {
        out.close();
      }
    }
  }

  /** The client stopped reading (or cancelled) in the middle of a prepared query's results. */
  private static final class ClientGone extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final BackpressureStrategy.WaitResult why;

    ClientGone(BackpressureStrategy.WaitResult why) {
      super("The client stopped reading: " + why, null, false, false);
      this.why = why;
    }
  }

  /**
   * Refuses DuckDB's ENUM columns in a prepared query's results: each execution exports its own
   * dictionaries, which one Flight stream, whose dictionaries go out once at its start, cannot
   * follow.
   */
  private static void checkNotDictionaryEncoded(Schema schema) throws SQLException {
    for (Field field : schema.getFields()) {
      if (field.getDictionary() != null) {
        throw new SQLException(
            "Column '"
                + field.getName()
                + "' is an ENUM, which a prepared query with parameters cannot stream; cast it to"
                + " VARCHAR in the query");
      }
    }
  }

  /**
   * Moves rows {@code [from, from + take)} of {@code in} into {@code out}. Whole batches hand their
   * buffers over; partial ones share them where Arrow can (split-and-transfer copies only what is
   * not byte-aligned, such as a validity bitmap that starts mid-byte). A dictionary-encoded column
   * moves its indices; its dictionary stays with the reader.
   */
  private static void moveRows(
      VectorSchemaRoot in, VectorSchemaRoot out, int from, int take, int count) {
    for (int i = 0; i < in.getFieldVectors().size(); i++) {
      FieldVector source = in.getVector(i);
      TransferPair transfer = source.makeTransferPair(out.getVector(i));
      if (from == 0 && take == count) {
        transfer.transfer();
      } else {
        transfer.splitAndTransfer(from, take);
      }
    }
    out.setRowCount(take);
  }

  /**
   * Waits out the pacing delay and until the client can take a batch; false when the stream ended
   * early instead (the client cancelled or stopped reading), which it then reports.
   */
  private boolean clientReady(
      ServerStreamListener listener, BackpressureStrategy backpressure, long sent) {
    if (!pacing.batchDelay().isZero() && !pacing.pause(listener::isCancelled)) {
      stopEarly(listener, BackpressureStrategy.WaitResult.CANCELLED, sent);
      return false;
    }
    BackpressureStrategy.WaitResult ready =
        backpressure.waitForListener(CLIENT_READ_TIMEOUT.toMillis());
    if (ready != BackpressureStrategy.WaitResult.READY) {
      stopEarly(listener, ready, sent);
      return false;
    }
    return true;
  }

  private static void stopEarly(
      ServerStreamListener listener, BackpressureStrategy.WaitResult why, long sent) {
    if (why == BackpressureStrategy.WaitResult.CANCELLED || listener.isCancelled()) {
      LOG.info("DoGet cancelled by the client after {} rows", sent);
      return;
    }
    LOG.warn("DoGet stopped after {} rows: the client stopped reading ({})", sent, why);
    listener.error(
        CallStatus.TIMED_OUT
            .withDescription(
                "The client did not read the stream for "
                    + CLIENT_READ_TIMEOUT.toMinutes()
                    + " minutes")
            .toRuntimeException());
  }

  private static void fail(
      ServerStreamListener listener, boolean completed, CallStatus status, Exception e) {
    if (completed) {
      // Only releasing the call's resources can fail this late, a leak the client cannot act on.
      LOG.error("DoGet could not release its resources", e);
      return;
    }
    if (listener.isCancelled()) {
      LOG.info("DoGet cancelled by the client ({})", e.getMessage());
      return;
    }
    LOG.warn("DoGet failed: {}", e.getMessage());
    listener.error(status.withDescription(e.getMessage()).withCause(e).toRuntimeException());
  }
}
