package io.flightsql.spark.write;

import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.types.SparkToArrow;
import io.flightsql.spark.write.WritePlan.Commit;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;

/**
 * The write of one micro-batch (epoch) of a streaming query, as the batch write appends a
 * DataFrame: planned by {@link WritePlanner} with save mode append (the table created by the first
 * commit when it does not exist, the rows' columns matched to an existing table's by name), each
 * task's rows staged in a table of its own unless option {@code atomic} is {@code false}, and the
 * staged rows moved into the table by {@link JobCommitter}, in one transaction where the server has
 * transactions. A {@link CommitGuard} given to {@link #commit} makes that commit idempotent. The
 * staging tables are named after a job id the caller gives, shared by the epochs of one query, so
 * that {@link #dropStagingTablesOfJobs} finds what a killed query left. Driver only; the writer
 * factory it makes is Serializable.
 */
public final class EpochWrite {
  private final WritePlan plan;
  private final JobCommitter job;
  private final int[] columnOrder;

  private EpochWrite(WritePlan plan, int[] columnOrder) {
    this.plan = plan;
    this.job = new JobCommitter(plan);
    this.columnOrder = columnOrder;
  }

  /**
   * Plans the append of rows of {@code schema} as {@code config} says (GetSqlInfo, GetTables).
   *
   * @param caseSensitive Spark's {@code spark.sql.caseSensitive}: how table and column names match
   * @param jobId names the staging tables: letters, digits and underscores
   * @throws IllegalArgumentException when the rows cannot be written to the table, naming why
   */
  public static EpochWrite plan(
      FlightSqlWriteConfig config, StructType schema, boolean caseSensitive, String jobId) {
    SparkToArrow.toArrowSchema(schema);
    WritePlanner planner = new WritePlanner(config, schema, caseSensitive).withJobId(jobId);
    WritePlan plan =
        planner
            .plan(SaveMode.Append)
            .orElseThrow(() -> new IllegalStateException("An append planned no write"));
    // The epoch runs now: a table its tasks write into directly is created now.
    JobStart.changeTable(plan);
    int[] order = null;
    if (planner.columns().isPresent() && !planner.columns().get().identity(schema)) {
      order = planner.columns().get().positions(schema);
    }
    return new EpochWrite(plan, order);
  }

  /**
   * Whether the commit moves the rows in one transaction, so that a guard's mark goes with them.
   */
  public boolean inOneTransaction() {
    return plan.commit() == Commit.TRANSACTION;
  }

  /** Whether tasks stage their rows, which only the commit makes visible. */
  public boolean staged() {
    return plan.staged();
  }

  /** The table written, in the server's own spelling where it exists. */
  public TableRef target() {
    return plan.target();
  }

  public FlightUri server() {
    return plan.config().uri();
  }

  /** The dialect of the server's statements. */
  public Dialect dialect() {
    return plan.dialect();
  }

  /** Makes each task's writer; tasks send rows in the order of the planned schema's columns. */
  public DataWriterFactory writerFactory() {
    return new FlightSqlDataWriterFactory(plan, columnOrder);
  }

  /**
   * Moves the rows of the tasks that sent {@code messages} into the table, unless {@code guard}
   * finds them committed before; drops the staging tables either way.
   */
  public void commit(WriterCommitMessage[] messages, CommitGuard guard) {
    job.commit(FlightSqlBatchWrite.messages(messages), guard);
  }

  /** Drops the staging tables of a failed epoch; the table is left as it was. */
  public void abort(WriterCommitMessage[] messages) {
    job.abort(FlightSqlBatchWrite.messages(messages));
  }

  /** Drops every staging table of this table whose job id starts with {@code jobIdPrefix}. */
  public void dropStagingTablesOfJobs(String jobIdPrefix) {
    StagingTables.dropOfJobs(plan, jobIdPrefix);
  }

  @Override
  public String toString() {
    return plan.toString();
  }
}
