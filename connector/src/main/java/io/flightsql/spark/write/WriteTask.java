package io.flightsql.spark.write;

import io.flightsql.spark.write.WritePlan.Commit;
import java.io.Serializable;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.executor.CommitDeniedException;
import org.apache.spark.executor.OutputMetrics;
import org.apache.spark.sql.catalyst.InternalRow;
import scala.collection.Iterator;
import scala.runtime.AbstractFunction2;

/**
 * One task of a DataFrame write ({@link DataFrameWrite}): streams its partition's rows through a
 * {@link FlightSqlDataWriter} and returns the commit message, or aborts the writer after any
 * failure; the writer is closed either way. Where tasks write into the table directly, a task asks
 * Spark's output commit coordinator first, as DataSourceV2 writes do, so that of two attempts of
 * one partition (speculation) only one commits. Reports the task's rows and Arrow bytes as Spark's
 * task output metrics (the stage page's "Output" column) and adds them, with the time waiting for
 * the server, to the write's named accumulators. Built on the driver, Serializable, run on
 * executors.
 */
final class WriteTask
    extends AbstractFunction2<TaskContext, Iterator<InternalRow>, FlightSqlCommitMessage>
    implements Serializable {
  private static final long serialVersionUID = 1L;

  private final WritePlan plan;
  private final WriteMetrics metrics;

  WriteTask(WritePlan plan, WriteMetrics metrics) {
    this.plan = plan;
    this.metrics = metrics;
  }

  @Override
  public FlightSqlCommitMessage apply(TaskContext context, Iterator<InternalRow> rows) {
    FlightSqlDataWriter writer =
        new FlightSqlDataWriter(plan, context.partitionId(), context.taskAttemptId());
    Throwable failure = null;
    try {
      while (rows.hasNext()) {
        writer.write(rows.next());
      }
      if (plan.commit() == Commit.TASKS) {
        requireCommitPermission(context);
      }
      FlightSqlCommitMessage message = (FlightSqlCommitMessage) writer.commit();
      // Spark's task output metrics have no public setter; the connector sets them as Spark's own
      // file writers do, so that the stage page and listeners see the rows written.
      OutputMetrics output = context.taskMetrics().outputMetrics();
      output.setRecordsWritten(writer.rowsWritten());
      output.setBytesWritten(writer.bytesSent());
      metrics.add(writer.rowsWritten(), writer.bytesSent(), writer.serverWaitNanos());
      return message;
    } catch (Throwable t) {
      failure = t;
      try {
        writer.abort();
      } catch (RuntimeException abortFailed) {
        t.addSuppressed(abortFailed);
      }
      throw t;
    } finally {
      try {
        writer.close();
      } catch (RuntimeException closeFailed) {
        if (failure == null) {
          throw closeFailed;
        }
        failure.addSuppressed(closeFailed);
      }
    }
  }

  /**
   * Asks the driver whether this attempt may commit its partition, as Spark's DataSourceV2 writes
   * do; a denied attempt fails as Spark expects, which neither counts as a task failure nor fails
   * the job.
   */
  private static void requireCommitPermission(TaskContext context) {
    boolean allowed =
        SparkEnv.get()
            .outputCommitCoordinator()
            .canCommit(
                context.stageId(),
                context.stageAttemptNumber(),
                context.partitionId(),
                context.attemptNumber());
    if (!allowed) {
      throw WriteTask.<RuntimeException>sneaky(
          new CommitDeniedException(
              "Commit denied for partition "
                  + context.partitionId()
                  + " (task "
                  + context.taskAttemptId()
                  + ", attempt "
                  + context.attemptNumber()
                  + "): another attempt committed it",
              context.stageId(),
              context.partitionId(),
              context.attemptNumber()));
    }
  }

  /**
   * Throws a checked exception where Scala's function type declares none, as Scala code would:
   * Spark's executor tells a {@link CommitDeniedException} apart by its class.
   */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
    throw (E) t;
  }
}
