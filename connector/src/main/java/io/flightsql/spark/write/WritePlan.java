package io.flightsql.spark.write;

import io.flightsql.spark.client.metadata.ServerCapabilities;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.config.FlightSqlOptions;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;
import io.flightsql.spark.dialect.Dialect;
import java.io.Serializable;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one write job does, decided on the driver before any task runs: the options, what the server
 * can do, the method (ingest or prepared INSERT), the dialect, whether tasks use transactions, and
 * for {@code atomic=true} the names of the staging tables. Immutable and Serializable; shipped to
 * executors with the writer factory.
 *
 * <p>The save mode is carried out on the driver ({@link FlightSqlSaveMode#save}), which then runs
 * the rows through Spark's DataSourceV2 write with this plan; the plan reaches that write through a
 * driver-side registry keyed by {@link #id()}, as data source options are strings.
 */
final class WritePlan implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The option by which the nested DataSourceV2 write finds its plan. */
  static final String PLAN_OPTION = FlightSqlOptions.WRITE_PLAN_OPTION;

  private static final Map<String, WritePlan> PLANS = new ConcurrentHashMap<>();

  private final String id;
  private final FlightSqlWriteConfig config;
  private final TableRef target;
  private final boolean atomic;
  private final ServerCapabilities capabilities;
  private final WriteMethod method;
  private final Dialect dialect;
  private final boolean deleteTargetAtCommit;

  /**
   * @param target the table written, in the server's own spelling where it exists
   * @param atomic whether the job is one transaction through staging tables (option {@code atomic},
   *     or an {@code INSERT OVERWRITE} on a server with transactions)
   */
  WritePlan(
      FlightSqlWriteConfig config,
      TableRef target,
      boolean atomic,
      ServerCapabilities capabilities,
      WriteMethod method,
      Dialect dialect,
      boolean deleteTargetAtCommit) {
    this.id = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    this.config = config;
    this.target = target;
    this.atomic = atomic;
    this.capabilities = capabilities;
    this.method = method;
    this.dialect = dialect;
    this.deleteTargetAtCommit = deleteTargetAtCommit;
  }

  String id() {
    return id;
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

  boolean atomic() {
    return atomic;
  }

  /** Whether the job's commit deletes the target's rows first (overwrite with atomic=true). */
  boolean deleteTargetAtCommit() {
    return deleteTargetAtCommit;
  }

  /**
   * Whether each task writes inside a transaction of its own: the server has transactions, and the
   * method can join one (a prepared statement always; ingestion only where the server says).
   */
  boolean taskTransactions() {
    return capabilities.transactions()
        && (method == WriteMethod.PREPARED || capabilities.ingestTransactions());
  }

  /** The name prefix shared by this job's staging tables. */
  String stagingPrefix() {
    return target.name() + "_flightsql_" + id + "_";
  }

  /** The staging table of one task attempt: each attempt has its own, so retries never mix. */
  TableRef stagingTable(int partitionId, long taskId) {
    return target.withName(stagingPrefix() + partitionId + "_" + taskId);
  }

  void register() {
    PLANS.put(id, this);
  }

  void unregister() {
    PLANS.remove(id);
  }

  static WritePlan registered(String id) {
    WritePlan plan = PLANS.get(id);
    if (plan == null) {
      throw new IllegalStateException(
          "No write plan " + id + " on this driver; write with df.write.format(\"flightsql\")");
    }
    return plan;
  }

  @Override
  public String toString() {
    return "WritePlan{"
        + config
        + ", target="
        + target
        + ", atomic="
        + atomic
        + ", method="
        + method.optionValue()
        + ", dialect="
        + dialect.name()
        + ", taskTransactions="
        + taskTransactions()
        + "}";
  }
}
