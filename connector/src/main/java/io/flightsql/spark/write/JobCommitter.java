package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.write.WritePlan.Commit;
import io.flightsql.spark.write.WritePlan.TableChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a write job, on the driver, for DataFrame writes ({@link DataFrameWrite}) and catalog
 * writes ({@link FlightSqlBatchWrite}) alike. Where tasks wrote into the table, the commit only
 * reports. Where they wrote to staging tables, the commit makes the rows of exactly the attempts
 * Spark committed visible, with the plan's table change: in one transaction where the server has
 * them, else by statements ordered so that the table is whole until the last of them. Both the
 * commit and the abort then drop the job's staging tables: those the commit messages name, then any
 * other the server lists under the job's prefix (attempts that failed, or lost the race to another
 * attempt). Every call is bounded by the client's deadlines, and none is refused because the thread
 * was interrupted (a cancelled job still cleans up). A {@link CommitGuard} makes the commit of a
 * job that may be committed twice (a streaming query's epoch) idempotent.
 */
final class JobCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(JobCommitter.class);

  private final WritePlan plan;

  /**
   * Whether a commit began to change the table outside a transaction: an abort after it (Spark
   * aborts a catalog write whose commit failed) cannot say the table is as it was.
   */
  private boolean tableTouched;

  /** Whether the job's COMMIT was sent and its answer lost: the server may have committed it. */
  private boolean commitUnanswered;

  JobCommitter(WritePlan plan) {
    this.plan = plan;
  }

  /** What the commit of {@code plan}'s staged rows does without a transaction, for warnings. */
  static String statementsDescription(WritePlan plan) {
    switch (plan.change()) {
      case DELETE_ROWS:
        return "deletes its rows, then copies each task's rows in, by separate statements";
      case REPLACE:
        return plan.dialect().renameTable(plan.target(), "t").isPresent()
            ? "fills a new table, renames the old one away and the new one into place, then drops"
                + " the old one"
            : "drops the table, creates it again and copies each task's rows in, by separate"
                + " statements (dialect '"
                + plan.dialect().name()
                + "' knows no way to rename a table)";
      case CREATE:
        return plan.dialect().renameTable(plan.target(), "t").isPresent()
            ? "fills a new table and renames it into place"
            : "creates the table and copies each task's rows in, by separate statements";
      default:
        return "copies each task's rows in, by separate statements";
    }
  }

  /** What a failure during such a commit can leave, for warnings. */
  static String statementsRisk(WritePlan plan) {
    switch (plan.change()) {
      case DELETE_ROWS:
        return "can leave the table empty or with part of the new rows";
      case REPLACE:
        return plan.dialect().renameTable(plan.target(), "t").isPresent()
            ? "between the two renames leaves the old rows in " + plan.retiredTable()
            : "can leave the table missing, empty or with part of the new rows";
      case CREATE:
        return "can leave part of the new rows";
      default:
        return "can leave part of the new rows in the table";
    }
  }

  /** Commits the job whose tasks sent these messages (one per partition). */
  void commit(List<FlightSqlCommitMessage> messages) {
    commit(messages, CommitGuard.NONE);
  }

  /**
   * Commits the job whose tasks sent these messages, unless {@code guard} finds it committed
   * before: then its staging tables are only dropped.
   */
  void commit(List<FlightSqlCommitMessage> messages, CommitGuard guard) {
    long rows = 0;
    List<TableRef> staged = new ArrayList<>();
    for (FlightSqlCommitMessage message : messages) {
      rows += Math.max(0, message.rows());
      if (message.stagingTable() != null) {
        staged.add(message.stagingTable());
      }
    }
    if (plan.staged()) {
      boolean[] moved = {false};
      Uninterrupted.run(() -> moved[0] = moveStagedRows(staged, guard));
      if (!moved[0]) {
        return;
      }
    }
    LOG.info(
        "Wrote {} rows to {} on {} in {} tasks ({}{})",
        rows,
        plan.target(),
        plan.config().uri(),
        messages.size(),
        plan.method().optionValue(),
        plan.staged() ? ", through " + staged.size() + " staging tables" : "");
  }

  /** Ends a failed job: its staging tables are dropped, and the table is left as it was. */
  void abort(List<FlightSqlCommitMessage> messages) {
    if (!plan.staged()) {
      LOG.warn(
          "The write to {} failed; tasks that committed keep their rows (option 'atomic' set to"
              + " 'auto' or 'true' makes the rows visible only when the whole job succeeds)",
          plan.target());
      return;
    }
    List<TableRef> staged = new ArrayList<>();
    for (FlightSqlCommitMessage message : messages) {
      if (message != null && message.stagingTable() != null) {
        staged.add(message.stagingTable());
      }
    }
    Uninterrupted.run(
        () -> {
          try (FlightSqlSession session =
              FlightSqlSession.open(plan.config().connection(), "write-abort")) {
            StagingTables.drop(session, plan, staged, plan.stagingPrefix());
          }
        });
    if (commitUnanswered) {
      LOG.warn(
          "The write to {} failed at its COMMIT, whose answer was lost: the table has either all"
              + " of the job's rows or none; read it before running the job again",
          plan.target());
    } else if (tableTouched) {
      LOG.warn(
          "The write to {} failed during its commit, which {}: the commit's error says which"
              + " statement failed",
          plan.target(),
          statementsDescription(plan));
    } else {
      LOG.warn("The write to {} failed; the table was left as it was", plan.target());
    }
  }

  /**
   * Moves the staged rows into the table, unless {@code guard} finds them committed before.
   *
   * @return whether they were moved
   */
  private boolean moveStagedRows(List<TableRef> staged, CommitGuard guard) {
    try (FlightSqlSession session =
        FlightSqlSession.open(plan.config().connection(), "write-commit")) {
      List<TableRef> left = staged;
      try {
        if (guard.committedBefore(session)) {
          LOG.info(
              "The rows of this job were committed to {} before: {} staging tables dropped, nothing"
                  + " written",
              plan.target(),
              staged.size());
          return false;
        }
        if (plan.change() == TableChange.NONE && staged.isEmpty()) {
          LOG.info("No rows to add to {}", plan.target());
        } else if (plan.commit() == Commit.TRANSACTION) {
          inOneTransaction(session, staged, guard);
        } else {
          left = byStatements(session, staged);
          guard.record(session, null);
        }
        return true;
      } finally {
        StagingTables.drop(session, plan, left, plan.stagingPrefix());
      }
    }
  }

  private void inOneTransaction(
      FlightSqlSession session, List<TableRef> staged, CommitGuard guard) {
    Dialect dialect = plan.dialect();
    TableRef target = plan.target();
    byte[] transaction = session.beginTransaction();
    try {
      switch (plan.change()) {
        case DELETE_ROWS:
          session.executeUpdate(dialect.deleteAll(target), transaction);
          break;
        case REPLACE:
          session.executeUpdate(dialect.dropTable(target), transaction);
          create(session, target, transaction);
          break;
        case CREATE:
          create(session, target, transaction);
          break;
        default:
          break;
      }
      for (TableRef table : staged) {
        session.executeUpdate(dialect.insertSelect(target, table, plan.schema()), transaction);
      }
      guard.record(session, transaction);
      commitTelling(session, transaction);
    } catch (RuntimeException e) {
      Transactions.rollback(session, transaction, e, "the commit of the write to " + target);
      throw e;
    }
  }

  /**
   * Commits the transaction. A COMMIT whose answer was lost (out of time, connection lost) may have
   * been carried out: the error says so, since the job's failure would otherwise suggest the table
   * was left as it was, and a second run of the job could add its rows twice. The table shows all
   * of the job's rows or none, never part of them.
   */
  private void commitTelling(FlightSqlSession session, byte[] transaction) {
    try {
      session.commit(transaction);
    } catch (FlightSqlConnectorException e) {
      if (!FlightErrors.isAnswerLost(e)) {
        throw e;
      }
      commitUnanswered = true;
      throw FlightErrors.amend(
          e,
          "The server's answer to the job's COMMIT was lost, so whether the server carried it out"
              + " is unknown: "
              + plan.target()
              + " has either all of the job's rows or none of them. Read it before running the"
              + " job again");
    }
  }

  /**
   * The commit on a server without transactions, ordered so that the table stays whole as long as
   * possible: staged rows are gathered in a new table, which is then renamed into place.
   *
   * @return the staging tables still to drop
   */
  private List<TableRef> byStatements(FlightSqlSession session, List<TableRef> staged) {
    Dialect dialect = plan.dialect();
    TableRef target = plan.target();
    boolean renames = dialect.renameTable(target, target.name()).isPresent();
    if ((plan.change() == TableChange.REPLACE || plan.change() == TableChange.CREATE) && renames) {
      TableRef gathered;
      List<TableRef> rest;
      if (staged.isEmpty()) {
        gathered = target.withName(plan.stagingPrefix() + "new");
        createStaging(session, gathered);
        rest = staged;
      } else {
        gathered = staged.get(0);
        rest = staged.subList(1, staged.size());
      }
      for (TableRef table : rest) {
        session.executeUpdate(dialect.insertSelect(gathered, table, plan.schema()), null);
      }
      tableTouched = true;
      if (plan.change() == TableChange.REPLACE) {
        swap(session, gathered);
      } else {
        session.executeUpdate(rename(gathered, target.name()), null);
      }
      return rest;
    }
    tableTouched = true;
    switch (plan.change()) {
      case DELETE_ROWS:
        session.executeUpdate(dialect.deleteAll(target), null);
        break;
      case REPLACE:
        session.executeUpdate(dialect.dropTable(target), null);
        create(session, target, null);
        break;
      case CREATE:
        create(session, target, null);
        break;
      default:
        break;
    }
    for (TableRef table : staged) {
      session.executeUpdate(dialect.insertSelect(target, table, plan.schema()), null);
    }
    return staged;
  }

  /** Renames the target away, {@code filled} into its place, then drops the old table. */
  private void swap(FlightSqlSession session, TableRef filled) {
    TableRef target = plan.target();
    TableRef retired = plan.retiredTable();
    session.executeUpdate(rename(target, retired.name()), null);
    try {
      session.executeUpdate(rename(filled, target.name()), null);
    } catch (RuntimeException e) {
      try {
        session.executeUpdate(rename(retired, target.name()), null);
      } catch (RuntimeException restoring) {
        e.addSuppressed(restoring);
        LOG.error(
            "The write to {} failed between renames: its old rows are in {}, and its new ones in {}",
            target,
            retired,
            filled);
      }
      throw e;
    }
    try {
      session.executeUpdateBounded(plan.dialect().dropTable(retired));
    } catch (RuntimeException e) {
      LOG.warn(
          "{} was replaced, but its old rows are still in {}, which could not be dropped: {}",
          target,
          retired,
          e.getMessage());
    }
  }

  private String rename(TableRef table, String newName) {
    Optional<String> sql = plan.dialect().renameTable(table, newName);
    if (!sql.isPresent()) {
      throw new IllegalStateException("Dialect " + plan.dialect().name() + " cannot rename");
    }
    return sql.get();
  }

  private void create(FlightSqlSession session, TableRef table, byte[] transaction) {
    TableStatements.create(
        session, plan.method(), plan.dialect(), table, plan.schema(), transaction);
  }

  /** A table made as the tasks make their staging tables, which the commit may rename. */
  private void createStaging(FlightSqlSession session, TableRef table) {
    if (plan.stagingByDdl()) {
      session.executeUpdate(plan.dialect().createTable(table, plan.schema()), null);
    } else {
      create(session, table, null);
    }
  }
}
