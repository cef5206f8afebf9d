package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.Warmup;
import io.flightsql.spark.client.upload.DoPutUpload;
import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;
import io.flightsql.spark.metrics.BytesSentMetric;
import io.flightsql.spark.metrics.RowsWrittenMetric;
import io.flightsql.spark.metrics.ServerWaitTimeMetric;
import io.flightsql.spark.vector.ArrowBatchBuilder;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams one task's rows to the server through a single DoPut, as Arrow batches of at most {@code
 * batchSize} rows and {@code batchBytes} bytes: a task holds the batch being filled and, in gRPC,
 * about one being sent, whatever its number of rows. Where the server has transactions the task
 * writes inside one, committed in {@link #commit()} and rolled back in {@link #abort()}, so a
 * failed attempt leaves nothing behind. With {@code atomic=true} it writes to its own staging
 * table. Runs on an executor; owns its session, allocator and batch builder, released in {@link
 * #close()}. Reports the rows written, the Arrow bytes sent and the time spent waiting for the
 * server as Spark custom metrics.
 */
final class FlightSqlDataWriter implements DataWriter<InternalRow> {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlDataWriter.class);

  private final WritePlan plan;
  private final int partitionId;
  private final long taskId;
  private final TableRef destination;
  private final FlightSqlSession session;
  private ArrowBatchBuilder batch;
  private byte[] transaction;
  private DoPutUpload upload;
  private long rowsSent;
  private long rowsWritten;
  private int batchesSent;
  private long bytesSent;

  /** Nanoseconds spent in calls to the server: beginning the transaction and upload, sending. */
  private long serverWaitNanos;

  private boolean finished;

  FlightSqlDataWriter(WritePlan plan, StructType schema, int partitionId, long taskId) {
    this.plan = plan;
    this.partitionId = partitionId;
    this.taskId = taskId;
    this.destination = plan.atomic() ? plan.stagingTable(partitionId, taskId) : plan.target();
    Warmup.start();
    this.session =
        FlightSqlSession.open(plan.config().connection(), "write-" + partitionId + "-" + taskId);
    long start = System.nanoTime();
    try {
      this.batch = ArrowBatchBuilder.create(schema, session.allocator());
      if (plan.taskTransactions()) {
        transaction = session.beginTransaction();
      }
      this.upload =
          startUpload(schema)
              .forTask("write task " + partitionId + " (task id " + taskId + ") uploading rows")
              .compress(plan.config().compression());
    } catch (RuntimeException e) {
      releaseAfterFailure(e);
      throw e;
    } finally {
      serverWaitNanos += System.nanoTime() - start;
    }
  }

  private DoPutUpload startUpload(StructType schema) {
    if (plan.method() == WriteMethod.INGEST) {
      DoPutUpload.IngestMode mode =
          plan.atomic() ? DoPutUpload.IngestMode.CREATE : DoPutUpload.IngestMode.APPEND;
      return session.ingest(batch.root(), destination, mode, transaction);
    }
    if (plan.atomic()) {
      session.executeUpdate(plan.dialect().createTable(destination, schema), transaction);
    }
    return session.preparedUpdate(
        batch.root(), plan.dialect().insert(destination, schema), transaction);
  }

  @Override
  public void write(InternalRow row) {
    batch.append(row);
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
    if (batch.rowCount() > 0) {
      sendBatch();
    }
    long reported = upload.finish();
    finished = true;
    if (transaction != null) {
      session.commit(transaction);
      transaction = null;
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
        partitionId, taskId, rowsSent, plan.atomic() ? destination : null);
  }

  @Override
  public void abort() {
    IllegalStateException cause =
        new IllegalStateException("write task " + partitionId + " was aborted");
    if (upload != null && !finished) {
      upload.abort(cause);
    }
    rollback(cause);
    LOG.warn(
        "Write task {} aborted after sending {} rows{}",
        partitionId,
        rowsSent,
        plan.taskTransactions() ? "; its transaction was rolled back" : "");
  }

  private void rollback(Throwable cause) {
    if (transaction == null) {
      return;
    }
    try {
      session.rollback(transaction);
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
      LOG.warn("Write task {}: rollback failed: {}", partitionId, e.getMessage());
    } finally {
      transaction = null;
    }
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    // Spark reads this before commit() sends the last batch, ends the upload and commits, so the
    // time of those is not in it.
    // The rows of the batch commit() will send are counted, and its bytes estimated (values,
    // offsets and string data, without validity bitmaps).
    long pendingBytes = batch != null && batch.rowCount() > 0 ? batch.estimatedBytes() : 0;
    return new CustomTaskMetric[] {
      RowsWrittenMetric.of(rowsWritten),
      BytesSentMetric.of(bytesSent + pendingBytes),
      ServerWaitTimeMetric.of(serverWaitNanos)
    };
  }

  private void releaseAfterFailure(RuntimeException e) {
    rollback(e);
    try {
      close();
    } catch (RuntimeException closing) {
      e.addSuppressed(closing);
    }
  }

  /** Releases the upload, the batch and the session, even after a failure. */
  @Override
  public void close() {
    RuntimeException failure = null;
    try {
      if (upload != null) {
        upload.close();
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      if (batch != null) {
        batch.close();
      }
    } catch (RuntimeException e) {
      failure = failure == null ? e : failure;
    }
    try {
      session.close();
    } catch (RuntimeException e) {
      if (failure != null) {
        e.addSuppressed(failure);
      }
      throw e;
    }
    if (failure != null) {
      throw failure;
    }
  }
}
