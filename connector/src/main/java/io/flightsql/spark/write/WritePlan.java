package io.flightsql.spark.write;

import io.flightsql.spark.client.metadata.ServerCapabilities;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;
import io.flightsql.spark.dialect.Dialect;
import java.io.Serializable;
import java.util.Locale;
import java.util.UUID;
import org.apache.spark.sql.types.StructType;

/**
 * What one write job does, decided on the driver before any task runs ({@link WritePlanner}): the
 * options, what the server can do, the method (ingest or prepared INSERT), the dialect, the rows'
 * columns, what becomes of the table, and who makes the rows visible: each task, or the job's
 * commit from staging tables. Immutable and Serializable; shipped to executors with every task.
 */
final class WritePlan implements Serializable {
  private static final long serialVersionUID = 2L;

  /** What the job does to the table besides adding the rows. */
  enum TableChange {
    /** The table exists and keeps its rows. */
    NONE,
    /** The table exists; its rows are deleted, its definition kept. */
    DELETE_ROWS,
    /** The table exists; it is dropped and created again from the rows' schema. */
    REPLACE,
    /** The table does not exist; it is created from the rows' schema. */
    CREATE;

    String describe() {
      return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
  }

  /** Who makes the rows visible. */
  enum Commit {
    /** Each task, into the table directly (in its own transaction where the server has them). */
    TASKS,
    /** The job's commit, from each committed task's staging table, in one transaction. */
    TRANSACTION,
    /** The job's commit, from the staging tables, by statements outside any transaction. */
    STATEMENTS
  }

  private final String jobId;
  private final FlightSqlWriteConfig config;
  private final TableRef target;
  private final ServerCapabilities capabilities;
  private final WriteMethod method;
  private final Dialect dialect;
  private final StructType schema;
  private final TableChange change;
  private final Commit commit;
  private final boolean stagingByDdl;

  /**
   * @param target the table written, in the server's own spelling where it exists
   * @param schema the rows as tasks send them: the table's names for an existing table
   * @param stagingByDdl whether staging tables are created with the dialect's CREATE TABLE (else by
   *     ingesting no rows, which lets the server choose the types)
   * @param jobId what names the job's staging tables, or null for a random id of its own
   */
  WritePlan(
      String jobId,
      FlightSqlWriteConfig config,
      TableRef target,
      ServerCapabilities capabilities,
      WriteMethod method,
      Dialect dialect,
      StructType schema,
      TableChange change,
      Commit commit,
      boolean stagingByDdl) {
    this.jobId =
        jobId != null ? jobId : UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    this.config = config;
    this.target = target;
    this.capabilities = capabilities;
    this.method = method;
    this.dialect = dialect;
    this.schema = schema;
    this.change = change;
    this.commit = commit;
    this.stagingByDdl = stagingByDdl;
  }

  FlightSqlWriteConfig config() {
    return config;
  }

  ServerCapabilities capabilities() {
    return capabilities;
  }

  /** INGEST or PREPARED, never AUTO. */
  WriteMethod method() {
    return method;
  }

  Dialect dialect() {
    return dialect;
  }

  TableRef target() {
    return target;
  }

  StructType schema() {
    return schema;
  }

  TableChange change() {
    return change;
  }

  Commit commit() {
    return commit;
  }

  /** Whether tasks write to staging tables, whose rows the job's commit moves into the table. */
  boolean staged() {
    return commit != Commit.TASKS;
  }

  boolean stagingByDdl() {
    return stagingByDdl;
  }

  /**
   * Whether each task writes inside a transaction of its own: it writes into the table directly,
   * the server has transactions, and the method can join one (a prepared statement always;
   * ingestion only where the server says). Tasks that write to staging tables need none, and take
   * none: on a server with one writer (SQLite) an open transaction blocks every other task.
   */
  boolean taskTransactions() {
    return commit == Commit.TASKS
        && capabilities.transactions()
        && (method == WriteMethod.PREPARED || capabilities.ingestTransactions());
  }

  /** What follows the table's name in the names of its staging tables, before the job's id. */
  static final String STAGING_INFIX = "_flightsql_";

  /** The name prefix shared by this job's staging tables, and by nothing else. */
  String stagingPrefix() {
    return target.name() + STAGING_INFIX + jobId + "_";
  }

  /** The staging table of one task attempt: each attempt has its own, so retries never mix. */
  TableRef stagingTable(int partitionId, long taskId) {
    return target.withName(stagingPrefix() + partitionId + "_" + taskId);
  }

  /**
   * Where a replaced table's old rows wait while the new table is renamed into place, on a server
   * without transactions. Outside {@link #stagingPrefix()}, so that cleaning up the staging tables
   * can never drop it.
   */
  TableRef retiredTable() {
    return target.withName(target.name() + "_flightsql_old_" + jobId);
  }

  @Override
  public String toString() {
    return "WritePlan{"
        + config
        + ", target="
        + target
        + ", method="
        + method.optionValue()
        + ", dialect="
        + dialect.name()
        + ", table change="
        + change.describe()
        + ", commit="
        + commit.name().toLowerCase(Locale.ROOT)
        + (staged() ? ", staging tables " + stagingPrefix() + "*" : "")
        + ", taskTransactions="
        + taskTransactions()
        + "}";
  }
}
