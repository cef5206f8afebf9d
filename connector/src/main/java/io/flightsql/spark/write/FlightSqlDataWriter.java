package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.Warmup;
import io.flightsql.spark.client.upload.DoPutUpload;
import io.flightsql.spark.client.upload.IngestMode;
import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;
import io.flightsql.spark.metrics.BytesSentMetric;
import io.flightsql.spark.metrics.RowsWrittenMetric;
import io.flightsql.spark.metrics.ServerWaitTimeMetric;
import io.flightsql.spark.vector.ArrowBatchBuilder;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams one task attempt's rows to the server through a single DoPut, as Arrow batches of at most
 * {@code batchSize} rows and {@code batchBytes} bytes: a task holds the batch being filled and, in
 * gRPC, about one being sent, whatever its number of rows. Nothing reaches the server before the
 * first row, so an empty partition costs no call. Where the plan stages the rows, they go to a
 * staging table of this attempt's own, created here, with no transaction; where tasks write into
 * the table and the server has transactions, the attempt writes inside one, committed in {@link
 * #commit()}. {@link #abort()} cancels the upload, then rolls back (twice if need be, and on an
 * interrupted thread too) and drops the staging table, so a failed attempt leaves nothing behind
 * and no transaction open. Runs on an executor; owns its session, allocator and batch builder,
 * released in {@link #close()}. Reports the rows written, the Arrow bytes sent and the time spent
 * waiting for the server.
 */
final class FlightSqlDataWriter implements DataWriter<InternalRow> {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlDataWriter.class);

  private final WritePlan plan;
  private final int partitionId;
  private final long taskId;
  private final TableRef destination;
  private FlightSqlSession session;
  private ArrowBatchBuilder batch;
  private byte[] transaction;
  private boolean stagingCreated;
  private DoPutUpload upload;
  private long rowsSent;
  private long rowsWritten;
  private int batchesSent;
  private long bytesSent;

  /** Nanoseconds spent in calls to the server: beginning the transaction and upload, sending. */
  private long serverWaitNanos;

  private boolean finished;

  FlightSqlDataWriter(WritePlan plan, int partitionId, long taskId) {
    this.plan = plan;
    this.partitionId = partitionId;
    this.taskId = taskId;
    this.destination = plan.staged() ? plan.stagingTable(partitionId, taskId) : plan.target();
    Warmup.start();
  }

  /**
   * Opens the session, the transaction or staging table, and the upload. A failure part way is
   * undone by {@link #abort()}, which both of the connector's callers run after any failure.
   */
  private void start() {
    long start = System.nanoTime();
    try {
      session =
          FlightSqlSession.open(plan.config().connection(), "write-" + partitionId + "-" + taskId);
      batch = ArrowBatchBuilder.create(plan.schema(), session.allocator());
      if (plan.taskTransactions()) {
        transaction = session.beginTransaction();
      }
      if (plan.staged()) {
        createStagingTable();
      }
      upload =
          openUpload()
              .forTask("write task " + partitionId + " (task id " + taskId + ") uploading rows")
              .compress(plan.config().compression());
    } finally {
      serverWaitNanos += System.nanoTime() - start;
    }
  }

  /** Creates the staging table now, or lets the ingestion that fills it create it. */
  private void createStagingTable() {
    if (plan.stagingByDdl()) {
      try {
        session.executeUpdate(plan.dialect().createTable(destination, plan.schema()), null);
      } catch (RuntimeException e) {
        if (!FlightErrors.isUnimplemented(e)) {
          throw e;
        }
        // A server that takes rows but runs no statement cannot stage: say how to write anyway.
        throw FlightErrors.failure(
            "DoPut(CommandStatementUpdate)",
            session.server(),
            FlightStatusCode.UNIMPLEMENTED,
            "the server runs no SQL statement, and a write that keeps the table until its commit"
                + " needs them (CREATE TABLE of a staging table, INSERT ... SELECT, DROP TABLE)",
            "Set option 'atomic' to false to write into the table directly; a failed job then"
                + " leaves the rows of the tasks that finished (see docs/writing.md)",
            e);
      }
    }
    stagingCreated = true;
  }

  private DoPutUpload openUpload() {
    if (plan.method() == WriteMethod.INGEST) {
      IngestMode mode =
          plan.staged() && !plan.stagingByDdl() ? IngestMode.CREATE : IngestMode.APPEND;
      return session.ingest(batch.root(), destination, mode, transaction);
    }
    return session.preparedUpdate(
        batch.root(), plan.dialect().insert(destination, plan.schema()), transaction);
  }

  @Override
  public void write(InternalRow row) {
    if (upload == null) {
      start();
    }
    try {
      batch.append(row);
    } catch (OutOfMemoryException e) {
      // A row (or batch) larger than option 'taskMemoryLimit' lets the task hold.
      throw FlightErrors.rpcFailed("Building a record batch to send", session.server(), e);
    }
    rowsWritten++;
    if (batch.rowCount() >= plan.config().batchRows()
        || batch.estimatedBytes() >= plan.config().batchBytes()) {
      sendBatch();
    }
  }

  private void sendBatch() {
    int rows = batch.rowCount();
    batch.finishBatch();
    long batchBytes = 0;
    for (FieldVector vector : batch.root().getFieldVectors()) {
      batchBytes += vector.getBufferSize();
    }
    long start = System.nanoTime();
    try {
      upload.sendBatch();
    } finally {
      serverWaitNanos += System.nanoTime() - start;
    }
    bytesSent += batchBytes;
    rowsSent += rows;
    batchesSent++;
    batch.reset();
    LOG.debug("Write task {}: batch {} with {} rows", partitionId, batchesSent, rows);
  }

  @Override
  public WriterCommitMessage commit() {
    if (upload == null) {
      LOG.info("Write task {} (task id {}) had no rows", partitionId, taskId);
      return new FlightSqlCommitMessage(partitionId, taskId, 0, null);
    }
    if (batch.rowCount() > 0) {
      sendBatch();
    }
    long start = System.nanoTime();
    long reported;
    try {
      reported = upload.finish();
      finished = true;
      if (transaction != null) {
        session.commit(transaction);
        transaction = null;
      }
    } finally {
      serverWaitNanos += System.nanoTime() - start;
    }
    if (reported >= 0 && reported != rowsSent) {
      LOG.warn(
          "Write task {}: sent {} rows but the server reports {} written",
          partitionId,
          rowsSent,
          reported);
    }
    LOG.info(
        "Write task {} (task id {}) wrote {} rows to {} in {} batches",
        partitionId,
        taskId,
        rowsSent,
        destination,
        batchesSent);
    return new FlightSqlCommitMessage(
        partitionId, taskId, rowsSent, plan.staged() ? destination : null);
  }

  @Override
  public void abort() {
    IllegalStateException cause =
        new IllegalStateException("write task " + partitionId + " was aborted");
    Uninterrupted.run(
        () -> {
          if (upload != null && !finished) {
            upload.abort(cause);
          }
          String ended = "";
          if (transaction != null) {
            boolean rolledBack =
                Transactions.rollback(
                    session,
                    transaction,
                    cause,
                    "write task " + partitionId + " on " + destination);
            transaction = null;
            ended = rolledBack ? "; its transaction was rolled back" : "";
          }
          if (stagingCreated) {
            dropStagingTable();
          }
          LOG.warn(
              "Write task {} (task id {}) aborted after sending {} rows{}",
              partitionId,
              taskId,
              rowsSent,
              ended);
        });
  }

  /**
   * Drops this attempt's staging table, which no commit will read. A failure is only logged: the
   * job's end drops every staging table it still finds.
   */
  private void dropStagingTable() {
    try {
      session.executeUpdateBounded(plan.dialect().dropTable(destination));
      stagingCreated = false;
    } catch (RuntimeException e) {
      LOG.info(
          "Write task {}: its staging table {} is left for the job's end to drop: {}",
          partitionId,
          destination,
          e.getMessage());
    }
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    // Spark reads this before commit() sends the last batch, ends the upload and commits, so the
    // time of those is not in it.
    // The rows of the batch commit() will send are counted, and its bytes estimated (values,
    // offsets and string data, without validity bitmaps).
    return new CustomTaskMetric[] {
      RowsWrittenMetric.of(rowsWritten),
      BytesSentMetric.of(bytesSent + pendingBytes()),
      ServerWaitTimeMetric.of(serverWaitNanos)
    };
  }

  private long pendingBytes() {
    return batch != null && batch.rowCount() > 0 ? batch.estimatedBytes() : 0;
  }

  /** Rows given to this writer. */
  long rowsWritten() {
    return rowsWritten;
  }

  /** Arrow bytes sent, with an estimate of those of a batch not sent yet. */
  long bytesSent() {
    return bytesSent + pendingBytes();
  }

  long serverWaitNanos() {
    return serverWaitNanos;
  }

  /**
   * Releases the upload, the batch and the session, even after a failure, and on an interrupted
   * thread too. A transaction still open here (a caller that neither committed nor aborted) is
   * rolled back first.
   */
  @Override
  public void close() {
    RuntimeException[] failure = {null};
    Uninterrupted.run(
        () -> {
          if (transaction != null) {
            Transactions.rollback(
                session,
                transaction,
                new IllegalStateException("write task " + partitionId + " closed"),
                "write task " + partitionId + " on " + destination);
            transaction = null;
          }
          try {
            if (upload != null) {
              upload.close();
            }
          } catch (RuntimeException e) {
            failure[0] = e;
          }
          try {
            if (batch != null) {
              batch.close();
            }
          } catch (RuntimeException e) {
            failure[0] = failure[0] == null ? e : failure[0];
          }
          try {
            if (session != null) {
              session.close();
            }
          } catch (RuntimeException e) {
            if (failure[0] != null) {
              e.addSuppressed(failure[0]);
            }
            failure[0] = e;
          }
        });
    if (failure[0] != null) {
      throw failure[0];
    }
  }
}
