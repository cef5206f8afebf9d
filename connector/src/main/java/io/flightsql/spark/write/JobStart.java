package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.config.FlightSqlWriteConfig.Atomic;
import io.flightsql.spark.metrics.ActionReads;
import io.flightsql.spark.write.WritePlan.Commit;
import io.flightsql.spark.write.WritePlan.TableChange;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table change of a write whose tasks write into the table directly ({@link Commit#TASKS}:
 * option {@code atomic} {@code false}, or no staging table possible), made when the job starts, on
 * the driver: for a catalog write when Spark asks for the writer factory ({@code
 * BatchWrite.createBatchWriterFactory}, which Spark 3.5 and 4 call when the write runs, after the
 * job's input partitions are made and before its tasks start), for a DataFrame write just before
 * its job. Never while Spark plans or explains a write: an {@code EXPLAIN INSERT OVERWRITE} changes
 * nothing. A write that would empty or drop a table its own job reads is refused before anything
 * changes, since the tasks would read the emptied table.
 */
final class JobStart {
  private static final Logger LOG = LoggerFactory.getLogger(JobStart.class);

  private JobStart() {}

  /** Makes {@code plan}'s table change now, where its tasks write into the table directly. */
  static void changeTable(WritePlan plan) {
    if (plan.commit() != Commit.TASKS || plan.change() == TableChange.NONE) {
      return;
    }
    if (plan.change() != TableChange.CREATE) {
      refuseSelfOverwrite(plan);
    }
    try (FlightSqlSession session =
        FlightSqlSession.open(plan.config().connection(), "write-start")) {
      switch (plan.change()) {
        case DELETE_ROWS:
          LOG.info(
              "Deleting the rows of {} on {} before the tasks run", plan.target(), server(plan));
          session.executeUpdate(plan.dialect().deleteAll(plan.target()), null);
          break;
        case REPLACE:
          LOG.info("Dropping {} on {} before the tasks run", plan.target(), server(plan));
          session.executeUpdate(plan.dialect().dropTable(plan.target()), null);
          create(session, plan);
          break;
        case CREATE:
          create(session, plan);
          break;
        default:
          break;
      }
    }
  }

  private static void create(FlightSqlSession session, WritePlan plan) {
    TableStatements.create(
        session, plan.method(), plan.dialect(), plan.target(), plan.schema(), null);
  }

  private static void refuseSelfOverwrite(WritePlan plan) {
    Optional<String> read =
        ActionReads.readingTable(plan.config().uri().toString(), plan.target().name());
    if (read.isPresent()) {
      throw new IllegalArgumentException(
          "The write to "
              + plan.target()
              + " on "
              + server(plan)
              + " writes into the table directly (option 'atomic' is '"
              + plan.config().atomic().optionValue()
              + "'"
              + (plan.config().atomic() == Atomic.FALSE ? "" : " and no staging table can be made")
              + "), so it would "
              + (plan.change() == TableChange.DELETE_ROWS ? "delete its rows" : "drop it")
              + " before its tasks run, but the job reads that table ("
              + read.get()
              + "): its rows would be lost. Nothing was changed. Set option 'atomic' to 'auto' (the"
              + " default), so that the old rows are replaced only when the job commits, or write"
              + " the rows to another table first.");
    }
  }

  private static String server(WritePlan plan) {
    return plan.config().uri().toString();
  }
}
