package io.flightsql.spark.read;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.ServerFacts;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.config.ReadOptions;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.metrics.ActionReads;
import io.flightsql.spark.sql.PushedQuery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of the planned query of a scan: the query as pushdown composed it, with the runtime
 * filters Spark adds when the job runs; the {@link PlannedQuery} the server answered for it; and
 * the input partitions made from that plan. The query is planned once and that plan serves every
 * use:
 *
 * <ul>
 *   <li>the statistics Spark asks for while it optimizes ({@link #figures()}, option {@code
 *       statistics}) plan the query and keep the plan;
 *   <li>the partitions ({@link #partitions()}) are made from the kept plan when it is younger than
 *       option {@code unreadPlanLifetime}, else from a new one, so that a plan made for an EXPLAIN
 *       is not read minutes later; each plan gives its partitions once, since a server may let each
 *       ticket be read only once, and the partitions are kept for the scan's later jobs (an
 *       endpoint that expires or is spent by then, or was planned for another action, is the
 *       reader's business: {@code client.EndpointCursor});
 *   <li>a runtime filter ({@link #restrict}) changes the query, so it drops the plan and the
 *       partitions, and the query is planned again, with the filter, before it is read; a server
 *       that refuses the filtered query is read without the filter.
 * </ul>
 *
 * A plan no job reads is cancelled on the server ({@link UnreadPlans}): a dropped one at once; the
 * statistics' plan when no partitions claimed it within option {@code unreadPlanLifetime}; the
 * partitions' plan of one endpoint when Spark did not run the scan ({@link #running()}, which Spark
 * signals when it makes the scan's RDD) within that time, as after an EXPLAIN: a later read of its
 * one endpoint plans the query again. A plan of several endpoints handed to Spark is left to the
 * server's expiry: its partitions cannot be planned again one by one.
 *
 * <p>A read split by the client ({@code partitionColumn}, {@code predicates}) plans nothing here:
 * each partition carries its query, with the runtime filters. Driver only; thread-safe.
 */
final class ScanPlan {
  private static final Logger LOG = LoggerFactory.getLogger(ScanPlan.class);

  /**
   * The fact, kept in {@link ServerFacts} like an unimplemented call, that the server gives no row
   * count with its FlightInfo: statistics then do not plan queries early for it.
   */
  static final String NO_ROW_COUNTS = "FlightInfo.total_records";

  private final FlightSqlReadConfig config;
  private final PushedQuery query;
  private final StructType schema;
  private final StructType sourceSchema;
  private final boolean dialectKnown;

  private List<String> runtimeFilters = Collections.emptyList();
  private PlannedQuery planned;

  /** The plan whose partitions Spark was given, until a runtime filter drops it. */
  private PlannedQuery handedOut;

  /** Whether Spark made the RDD of {@link #handedOut}'s partitions: a job reads them. */
  private boolean running;

  private ReadFigures figures;
  private InputPartition[] partitions;

  /**
   * @param query the query as pushdown composed it
   * @param schema what the scan returns, which a composed query's plan is checked against
   * @param sourceSchema the columns of the source relation, in which a partition column is found
   * @param dialectKnown whether {@code query} is in the server's established dialect (pushdown
   *     found one), which a probe of the row count needs
   */
  ScanPlan(
      FlightSqlReadConfig config,
      PushedQuery query,
      StructType schema,
      StructType sourceSchema,
      boolean dialectKnown) {
    this.config = config;
    this.query = query;
    this.schema = schema;
    this.sourceSchema = sourceSchema;
    this.dialectKnown = dialectKnown;
  }

  /** The columns of the source relation. */
  StructType sourceSchema() {
    return sourceSchema;
  }

  /** The query as it is sent now: with the runtime filters, if any. */
  synchronized PushedQuery query() {
    return runtimeFilters.isEmpty() ? query : query.where(runtimeFilters);
  }

  /**
   * What the server says of the query's size, asked once (see option {@code statistics}); unknown
   * where it says nothing, or where asking failed (the read then meets the failure itself).
   */
  synchronized ReadFigures figures() {
    if (figures == null) {
      figures = askFigures();
    }
    return figures;
  }

  private ReadFigures askFigures() {
    ReadOptions.Statistics mode = config.optimizer().statistics();
    boolean split = config.partitioning().isClientSide();
    ReadFigures found = ReadFigures.UNKNOWN;
    if (mode == ReadOptions.Statistics.NONE) {
      return found;
    }
    ServerFacts facts = ServerFacts.of(config.connection());
    try {
      if (!split && !facts.lacks(NO_ROW_COUNTS)) {
        // Planned now, the plan is the partitions' too: the query is not planned twice.
        planned = PlannedQuery.plan(config, query(), schema);
        UnreadPlans.cancelIfUnread(config, planned, lifetime(), this::unread);
        found = new ReadFigures(planned.rows(), planned.bytes());
        if (!found.rows().isPresent()) {
          facts.noteLacking(NO_ROW_COUNTS);
          LOG.info(
              "{} gives no row count with its FlightInfo: reads report no statistics from it"
                  + " for the next 10 minutes",
              config.uri());
        }
      }
      if (!found.rows().isPresent() && mode == ReadOptions.Statistics.PROBE) {
        found = probe();
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "No statistics for the read of {}: {}; Spark plans without them",
          config.displayName(),
          e.getMessage());
      return ReadFigures.UNKNOWN;
    }
    LOG.debug("Statistics of the read of {}: {}", config.displayName(), found);
    return found;
  }

  /**
   * Counts the rows of the query with a query that stops after option {@code statisticsProbeRows}
   * rows: the count when there are no more, unknown when there are. In the read's dialect, or,
   * where pushdown established none, the dialect the server's answers establish.
   */
  private ReadFigures probe() {
    int bound = config.optimizer().statisticsProbeRows();
    PushedQuery current = query();
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "statistics")) {
      Dialect dialect = current.dialect();
      if (!dialectKnown) {
        ResolvedDialect resolved = Dialects.resolve(config.dialect(), session.capabilities());
        if (!resolved.quotingKnown()) {
          return ReadFigures.UNKNOWN;
        }
        dialect = resolved.dialect();
      }
      if (!dialect.limitOffset(bound + 1, 0).isPresent()) {
        return ReadFigures.UNKNOWN;
      }
      String counted =
          PushedQuery.overWritten(dialect, PlannedQuery.sql(config, current, session))
              .select(Collections.singletonList("1 AS " + dialect.quoted("flightsql_one")))
              .limit(bound + 1)
              .sql();
      long rows = session.countRows(counted);
      LOG.info(
          "Statistics probe of the read of {}: {}",
          config.displayName(),
          rows > bound ? "more than " + bound + " rows" : rows + " rows");
      return rows > bound
          ? ReadFigures.UNKNOWN
          : new ReadFigures(OptionalLong.of(rows), OptionalLong.empty());
    }
  }

  /**
   * Adds Spark's runtime filters (conditions already written in the dialect) to the query, in place
   * of any added before. When they change the query, the plan and partitions made so far are
   * dropped, and the partitions are planned again from the filtered query.
   *
   * @return whether the query changed
   */
  synchronized boolean restrict(List<String> conditions) {
    List<String> next = new ArrayList<>(new LinkedHashSet<>(conditions));
    if (next.equals(runtimeFilters)) {
      return false;
    }
    runtimeFilters = Collections.unmodifiableList(next);
    // Spark reads the partitions of the filtered query only: what was planned before is dropped.
    for (PlannedQuery dropped : new PlannedQuery[] {planned, running ? null : handedOut}) {
      if (dropped != null) {
        UnreadPlans.cancel(config, dropped);
      }
    }
    planned = null;
    handedOut = null;
    partitions = null;
    return true;
  }

  /** Spark made the RDD of the partitions: a job reads them, and their plan is not cancelled. */
  synchronized void running() {
    running = true;
  }

  /**
   * Whether {@code plan} is still unread once its lifetime passed, so that it is cancelled: the
   * statistics' plan that no partitions claimed (then forgotten), or the plan of one endpoint whose
   * partitions Spark did not run.
   */
  private synchronized boolean unread(PlannedQuery plan) {
    if (planned == plan) {
      planned = null;
      return true;
    }
    return handedOut == plan && !running && plan.endpointCount() == 1;
  }

  private Duration lifetime() {
    return config.optimizer().unreadPlanLifetime();
  }

  /** The input partitions of the query as it is now, made once. */
  synchronized InputPartition[] partitions() {
    // A write of the same action that would empty this table first refuses (write.JobStart).
    ActionReads.note(config.uri().toString(), query().sql());
    if (partitions == null) {
      partitions =
          config.partitioning().isClientSide()
              ? ClientPartitions.partitions(config, query(), sourceSchema)
              : serverPartitions();
    }
    return partitions.clone();
  }

  private InputPartition[] serverPartitions() {
    PlannedQuery plan = planned;
    // Its tickets go to these partitions only.
    planned = null;
    if (plan != null && plan.ageMillis() <= lifetime().toMillis()) {
      LOG.debug("Read of {} reuses the plan made for its statistics", config.displayName());
    } else {
      if (plan != null) {
        UnreadPlans.cancel(config, plan);
      }
      plan = planFiltered();
    }
    handedOut = plan;
    running = false;
    UnreadPlans.cancelIfUnread(config, plan, lifetime(), this::unread);
    return plan.partitions();
  }

  /**
   * Plans the query; where the server refuses it with its runtime filters (an answer, not a failed
   * call), plans it without them: the filters only spare rows the join drops.
   */
  private PlannedQuery planFiltered() {
    try {
      return PlannedQuery.plan(config, query(), schema);
    } catch (RuntimeException e) {
      if (runtimeFilters.isEmpty() || FlightErrors.isAboutTheCall(e)) {
        throw e;
      }
      LOG.warn(
          "{} refused the runtime filter of the read of {} ({}); it is read without it",
          config.uri(),
          config.displayName(),
          e.getMessage());
      runtimeFilters = Collections.emptyList();
      return PlannedQuery.plan(config, query, schema);
    }
  }

  /** What the server said of a read's size; each part empty when unknown. */
  static final class ReadFigures {
    static final ReadFigures UNKNOWN = new ReadFigures(OptionalLong.empty(), OptionalLong.empty());

    private final OptionalLong rows;
    private final OptionalLong bytes;

    ReadFigures(OptionalLong rows, OptionalLong bytes) {
      this.rows = rows;
      this.bytes = bytes;
    }

    OptionalLong rows() {
      return rows;
    }

    OptionalLong bytes() {
      return bytes;
    }

    @Override
    public String toString() {
      return "rows="
          + (rows.isPresent() ? rows.getAsLong() : "unknown")
          + ", bytes="
          + (bytes.isPresent() ? bytes.getAsLong() : "unknown");
    }
  }
}
