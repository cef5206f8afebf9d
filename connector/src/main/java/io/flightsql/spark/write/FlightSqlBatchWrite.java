package io.flightsql.spark.write;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * The job side of a catalog write ({@code INSERT INTO}, {@code INSERT OVERWRITE}, {@code
 * df.writeTo} ...), as Spark's DataSourceV2 runs it: the commit and abort are {@link
 * JobCommitter}'s, which DataFrame writes share. Driver only; not Serializable.
 */
final class FlightSqlBatchWrite implements BatchWrite {
  private final WritePlan plan;
  private final JobCommitter job;

  FlightSqlBatchWrite(WritePlan plan) {
    this.plan = plan;
    this.job = new JobCommitter(plan);
  }

  /**
   * Spark asks for the factory when the write runs, not when it plans or explains it: a table
   * change made before the tasks (option {@code atomic} {@code false}) is made here.
   */
  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    JobStart.changeTable(plan);
    return new FlightSqlDataWriterFactory(plan);
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    job.commit(messages(messages));
  }

  /** Spark passes the messages of the tasks that committed; null for the others. */
  @Override
  public void abort(WriterCommitMessage[] messages) {
    job.abort(messages(messages));
  }

  /** The messages of the tasks that committed: Spark passes null for the others. */
  static List<FlightSqlCommitMessage> messages(WriterCommitMessage[] messages) {
    List<FlightSqlCommitMessage> out = new ArrayList<>();
    for (WriterCommitMessage message : messages) {
      if (message != null) {
        out.add((FlightSqlCommitMessage) message);
      }
    }
    return out;
  }
}
