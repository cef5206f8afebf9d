package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.TableRef;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dropping the staging tables of write jobs, on the driver, after a job's commit or abort and when
 * a streaming query starts again after its driver died: those the job knows, then every other one
 * the server lists under a name prefix. Each DROP is bounded; a table that cannot be dropped is
 * logged by name, and the job's outcome stands.
 */
final class StagingTables {
  private static final Logger LOG = LoggerFactory.getLogger(StagingTables.class);

  private StagingTables() {}

  /**
   * Drops {@code known}, then every other table listed under {@code prefix} (a task that failed
   * drops its own, but may race with this, or be lost with its executor). The tables that could not
   * be dropped and are still listed are logged by name.
   */
  static void drop(FlightSqlSession session, WritePlan plan, List<TableRef> known, String prefix) {
    // By name: GetTables may spell the catalog and schema where the plan left them out.
    Set<String> tried = new LinkedHashSet<>();
    Map<String, String> failed = new LinkedHashMap<>();
    for (TableRef table : known) {
      drop(session, plan, table, failed);
      tried.add(table.name());
    }
    List<TableRef> listed = list(session, plan, prefix);
    if (listed == null) {
      return;
    }
    for (TableRef table : listed) {
      if (tried.add(table.name())) {
        drop(session, plan, table, failed);
      }
    }
    if (failed.isEmpty()) {
      return;
    }
    List<TableRef> left = list(session, plan, prefix);
    for (TableRef table : left == null ? listed : left) {
      if (failed.containsKey(table.name())) {
        LOG.warn(
            "Could not drop the staging table {}; drop it yourself: {}",
            table,
            failed.get(table.name()));
      }
    }
  }

  /**
   * Drops every staging table of {@code plan}'s table whose job id starts with {@code jobIdPrefix},
   * such as those a killed streaming query left: the jobs that wrote them must have ended.
   */
  static void dropOfJobs(WritePlan plan, String jobIdPrefix) {
    Uninterrupted.run(
        () -> {
          try (FlightSqlSession session =
              FlightSqlSession.open(plan.config().connection(), "write-clean-up")) {
            drop(
                session,
                plan,
                List.of(),
                plan.target().name() + WritePlan.STAGING_INFIX + jobIdPrefix);
          }
        });
  }

  /** The staging tables the server lists, or null (logged) when it cannot list them. */
  private static List<TableRef> list(FlightSqlSession session, WritePlan plan, String prefix) {
    try {
      return session.tablesStartingWith(plan.target(), prefix);
    } catch (RuntimeException e) {
      LOG.warn(
          "Could not list the staging tables {}* of the write to {}; drop any that remain: {}",
          prefix,
          plan.target(),
          e.getMessage());
      return null;
    }
  }

  private static void drop(
      FlightSqlSession session, WritePlan plan, TableRef table, Map<String, String> failed) {
    try {
      // Bounded: a server that holds the DROP behind another transaction's lock must not hold
      // the job's end.
      session.executeUpdateBounded(plan.dialect().dropTable(table));
    } catch (RuntimeException e) {
      failed.put(table.name(), e.getMessage());
    }
  }
}
