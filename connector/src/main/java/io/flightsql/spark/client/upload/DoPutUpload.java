package io.flightsql.spark.client.upload;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlClientWithOptions;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.StreamWatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutUpdateResult;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One upload of Arrow batches to a Flight SQL server through a single DoPut: either bulk ingestion
 * ({@code CommandStatementIngest}) or a prepared INSERT whose parameters are the rows ({@code
 * CommandPreparedStatementUpdate}). The caller fills the root, calls {@link #sendBatch()} for each
 * batch, and {@link #finish()} at the end; or {@link #abort} to cancel the upload.
 *
 * <p>Sending waits, parked, until gRPC is ready for more, and each batch is serialized before
 * {@link #sendBatch()} returns, so the caller may refill the root at once and memory stays bounded
 * by about one batch in flight.
 */
public final class DoPutUpload implements AutoCloseable {
  private final FlightSqlClientWithOptions client;
  private final FlightUri server;
  private final String rpc;
  private final SyncPutListener results = new SyncPutListener();
  private final FlightClient.ClientStreamListener stream;
  private final VectorSchemaRoot root;
  private final ByteString preparedHandle;
  private final long idleTimeoutMillis;
  private String task = "uploading";
  private boolean ended;

  /** Whether {@link #finish()} read the server's answer to its end. */
  private boolean answered;

  /**
   * What the upload was waiting for when option {@code streamIdleTimeout} cancelled it, or null.
   */
  private volatile String idleWait;

  private DoPutUpload(
      FlightSqlClientWithOptions client,
      FlightUri server,
      String rpc,
      FlightDescriptor descriptor,
      VectorSchemaRoot root,
      ByteString preparedHandle) {
    this.client = client;
    this.server = server;
    this.rpc = rpc;
    this.preparedHandle = preparedHandle;
    this.idleTimeoutMillis = client.settings().streamIdleTimeoutMillis();
    this.root = root;
    try {
      this.stream = client.startPut(descriptor, root, results);
    } catch (RuntimeException e) {
      closePrepared(e);
      throw FlightErrors.rpcFailed(rpc, server, e);
    }
  }

  public static DoPutUpload ingest(
      FlightSqlClientWithOptions client,
      FlightUri server,
      VectorSchemaRoot root,
      TableRef table,
      IngestMode mode,
      byte[] transactionId) {
    CommandStatementIngest.Builder command =
        CommandStatementIngest.newBuilder()
            .setTableDefinitionOptions(mode.options())
            .setTable(table.name());
    if (table.schema() != null) {
      command.setSchema(table.schema());
    }
    if (table.catalog() != null) {
      command.setCatalog(table.catalog());
    }
    if (transactionId != null) {
      command.setTransactionId(ByteString.copyFrom(transactionId));
    }
    FlightDescriptor descriptor = FlightDescriptor.command(Any.pack(command.build()).toByteArray());
    return new DoPutUpload(client, server, "DoPut(CommandStatementIngest)", descriptor, root, null);
  }

  public static DoPutUpload preparedUpdate(
      FlightSqlClientWithOptions client,
      FlightUri server,
      VectorSchemaRoot root,
      String sql,
      byte[] transactionId) {
    ActionCreatePreparedStatementRequest.Builder request =
        ActionCreatePreparedStatementRequest.newBuilder().setQuery(sql);
    if (transactionId != null) {
      request.setTransactionId(ByteString.copyFrom(transactionId));
    }
    ByteString handle = PreparedStatements.create(client, server, request.build());
    FlightDescriptor descriptor =
        FlightDescriptor.command(
            Any.pack(
                    CommandPreparedStatementUpdate.newBuilder()
                        .setPreparedStatementHandle(handle)
                        .build())
                .toByteArray());
    return new DoPutUpload(
        client, server, "DoPut(CommandPreparedStatementUpdate)", descriptor, root, handle);
  }

  /**
   * Names the Spark task that uploads, for the error of a stalled upload: {@code "write task 3"}.
   */
  public DoPutUpload forTask(String name) {
    this.task = name;
    return this;
  }

  /**
   * Compresses every batch sent with {@code compression} (option {@code compression}); call it
   * before the first batch. Where the codec cannot be loaded, the upload is cancelled before any
   * row is sent.
   */
  public DoPutUpload compress(UploadCompression compression) {
    try {
      compression.applyTo(stream, root);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    return this;
  }

  /** Sends the root's current contents as one record batch. */
  public void sendBatch() {
    awaitReady();
    try {
      stream.putNext();
    } catch (RuntimeException e) {
      throw failure(e);
    }
  }

  /**
   * Waits, parked, until gRPC takes more data. Arrow's {@code putNext} would wait too, but by
   * spinning, which on an executor burns a core per writing task for as long as the server is
   * slower than Spark (measured: 14% of a write task's CPU, and a raw upload 15% faster parked).
   */
  private void awaitReady() {
    long pauseNanos = 10_000L;
    long start = System.nanoTime();
    while (!stream.isReady() && !results.isCancelled()) {
      if (idleTimeoutMillis > 0
          && System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(idleTimeoutMillis)) {
        cancelIdle("the server took no more data");
        throw idleError(null);
      }
      if (Thread.currentThread().isInterrupted()) {
        abort(new IllegalStateException("interrupted"));
        throw FlightErrors.failure(
            rpc,
            server,
            FlightStatusCode.CANCELLED,
            "interrupted while waiting for the server to take more data; the upload was cancelled",
            null,
            null);
      }
      LockSupport.parkNanos(pauseNanos);
      pauseNanos = Math.min(pauseNanos * 2, 1_000_000L);
    }
  }

  /**
   * Ends the upload and waits for the server's answer.
   *
   * @return the number of rows the server reports written, or -1 when it does not say
   */
  public long finish() {
    ended = true;
    try {
      stream.completed();
      long count = -1;
      while (true) {
        // Not a try-with-resources: javac's "try" lint refuses a resource the body never names.
        StreamWatch watch =
            StreamWatch.start(
                idleTimeoutMillis,
                () -> cancelIdle("waiting for the server to acknowledge the upload"));
        PutResult result;
        try {
          result = results.read();
        } finally {
          watch.close();
        }
        if (result == null) {
          break;
        }
        try (PutResult r = result) {
          count = recordCount(r, count);
        }
      }
      results.getResult();
      answered = true;
      return count;
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (idleWait != null) {
        throw idleError(cause);
      }
      throw FlightErrors.rpcFailed(
          rpc,
          server,
          cause instanceof RuntimeException
              ? (RuntimeException) cause
              : new IllegalStateException(cause));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw FlightErrors.failure(
          rpc,
          server,
          FlightStatusCode.CANCELLED,
          "interrupted while waiting for the server to acknowledge the upload",
          null,
          e);
    } catch (RuntimeException e) {
      throw failure(e);
    }
  }

  private static long recordCount(PutResult result, long previous) {
    ArrowBuf metadata = result.getApplicationMetadata();
    if (metadata == null || metadata.readableBytes() == 0) {
      return previous;
    }
    byte[] bytes = new byte[(int) metadata.readableBytes()];
    metadata.getBytes(0, bytes);
    try {
      return DoPutUpdateResult.parseFrom(bytes).getRecordCount();
    } catch (InvalidProtocolBufferException e) {
      return previous;
    }
  }

  /** The error of an upload that option {@code streamIdleTimeout} cancelled. */
  private FlightSqlConnectorException idleError(Throwable cause) {
    return StreamWatch.idle(rpc, server, task + " (" + idleWait + ")", idleTimeoutMillis, cause);
  }

  /**
   * Cancels the call after option {@code streamIdleTimeout} passed with nothing from the server.
   */
  private void cancelIdle(String waitingFor) {
    idleWait = waitingFor;
    ended = true;
    try {
      stream.error(
          CallStatus.CANCELLED
              .withDescription("the server sent nothing within option 'streamIdleTimeout'")
              .toRuntimeException());
    } catch (RuntimeException e) {
      // The call is already over; the waiting side sees why.
    }
  }

  /** Cancels the upload (the server must not keep its rows), keeping {@code cause} informed. */
  public void abort(Throwable cause) {
    if (ended) {
      return;
    }
    ended = true;
    try {
      stream.error(
          CallStatus.CANCELLED
              .withDescription("The Spark task failed: " + cause)
              .toRuntimeException());
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * The server's reason when there is one: a failed send usually means the server ended the call,
   * and its status is in the put listener. A call the failure did not end is given option {@code
   * streamIdleTimeout} to end with the server's reason, and is then cancelled.
   */
  private FlightSqlConnectorException failure(RuntimeException e) {
    if (idleWait != null) {
      return idleError(e);
    }
    RuntimeException cause = e;
    // Not a try-with-resources: javac's "try" lint refuses a resource the body never names.
    StreamWatch watch =
        StreamWatch.start(
            idleTimeoutMillis, () -> cancelIdle("waiting for the server's reason for the failure"));
    try {
      results.getResult();
    } catch (RuntimeException serverSide) {
      cause = serverSide;
    } finally {
      watch.close();
    }
    if (watch.fired()) {
      FlightSqlConnectorException idle = idleError(cause);
      idle.addSuppressed(FlightErrors.rpcFailed(rpc, server, e));
      return idle;
    }
    return FlightErrors.rpcFailed(rpc, server, cause);
  }

  private void closePrepared(Throwable primary) {
    if (preparedHandle != null) {
      PreparedStatements.close(client, preparedHandle, primary);
    }
  }

  /**
   * Closes the prepared statement, if any; an upload neither finished nor aborted is aborted, and
   * one whose {@link #finish()} was cut short (interrupted, or failed) is cancelled. Answers of the
   * server that nobody read are released: they hold memory of the caller's allocator.
   */
  @Override
  public void close() {
    if (!ended) {
      abort(new IllegalStateException("the upload was closed before it finished"));
    } else if (!answered) {
      try {
        stream.error(
            CallStatus.CANCELLED.withDescription("the upload was closed").toRuntimeException());
      } catch (RuntimeException e) {
        // The call is already over.
      }
    }
    releaseUnreadAnswers();
    closePrepared(null);
  }

  /**
   * Waits, at most a few seconds, for gRPC to report the call's end (prompt once it is cancelled or
   * answered), after which no answer arrives, then releases the answers nobody read.
   */
  private void releaseUnreadAnswers() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!results.isCancelled()
        && System.nanoTime() < deadline
        && !Thread.currentThread().isInterrupted()) {
      LockSupport.parkNanos(1_000_000L);
    }
    results.close();
  }
}
