package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.TableRef;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job side of a write. Without {@code atomic}, each task committed its own rows and the job's
 * commit only reports them. With {@code atomic=true}, each task attempt wrote to a staging table of
 * its own, and the commit moves the rows of exactly the attempts Spark committed into the target in
 * one transaction (after deleting the target's rows for an overwrite), then drops every staging
 * table of the job, those of failed attempts included; abort drops them all. Driver only.
 */
final class FlightSqlBatchWrite implements BatchWrite {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlBatchWrite.class);

  private final WritePlan plan;
  private final StructType schema;

  FlightSqlBatchWrite(WritePlan plan, StructType schema) {
    this.plan = plan;
    this.schema = schema;
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return new FlightSqlDataWriterFactory(plan, schema);
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    long rows = 0;
    List<TableRef> staged = new ArrayList<>();
    for (WriterCommitMessage message : messages) {
      FlightSqlCommitMessage m = (FlightSqlCommitMessage) message;
      rows += Math.max(0, m.rows());
      if (m.stagingTable() != null && m.rows() != 0) {
        staged.add(m.stagingTable());
      }
    }
    if (plan.atomic()) {
      moveStagedRows(staged);
    }
    LOG.info(
        "Wrote {} rows to {} on {} in {} tasks ({})",
        rows,
        plan.target(),
        plan.config().uri(),
        messages.length,
        plan.method().optionValue());
  }

  private void moveStagedRows(List<TableRef> staged) {
    try (FlightSqlSession session =
        FlightSqlSession.open(plan.config().connection(), "write-commit")) {
      byte[] transaction = session.beginTransaction();
      try {
        if (plan.deleteTargetAtCommit()) {
          session.executeUpdate(plan.dialect().deleteAll(plan.target()), transaction);
        }
        for (TableRef table : staged) {
          session.executeUpdate(
              plan.dialect().insertSelect(plan.target(), table, schema), transaction);
        }
        session.commit(transaction);
      } catch (RuntimeException e) {
        try {
          session.rollback(transaction);
        } catch (RuntimeException rollbackFailed) {
          e.addSuppressed(rollbackFailed);
        }
        throw e;
      } finally {
        dropStagingTables(session);
      }
    }
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    if (!plan.atomic()) {
      LOG.warn(
          "The write to {} failed; tasks that committed keep their rows (option 'atomic' makes"
              + " the whole job one transaction)",
          plan.target());
      return;
    }
    try (FlightSqlSession session =
        FlightSqlSession.open(plan.config().connection(), "write-abort")) {
      dropStagingTables(session);
    }
  }

  /** Drops every staging table of this job; a failure is logged, as the job's outcome stands. */
  private void dropStagingTables(FlightSqlSession session) {
    try {
      for (TableRef table : session.tablesStartingWith(plan.target(), plan.stagingPrefix())) {
        try {
          session.executeUpdate(plan.dialect().dropTable(table), null);
        } catch (RuntimeException e) {
          LOG.warn("Could not drop the staging table {}: {}", table, e.getMessage());
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("Could not list the staging tables of {}: {}", plan.target(), e.getMessage());
    }
  }
}
