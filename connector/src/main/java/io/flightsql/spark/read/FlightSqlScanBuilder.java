package io.flightsql.spark.read;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.sql.PushedQuery;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Avg;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownOffset;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownTopN;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the scan of one read, and with it the query the server runs: Spark pushes the columns it
 * needs, its filters, an aggregation, a limit, an offset and a top-N here, and each is taken when
 * its option allows it and the read's {@link Dialect} can write it so that the server computes what
 * Spark would. What is taken so far is one immutable {@link PushedQuery}; each step composes the
 * next one and keeps it only where the server takes it. Driver only; not Serializable (the {@link
 * PushedQuery} it builds is).
 *
 * <p>The dialect, and which columns the server compares as Spark does, are found the first time
 * something could be pushed (GetSqlInfo, and the query's Arrow schema when the table did not bring
 * it); a server that cannot tell gets nothing pushed. Every question goes through one session
 * ({@link PushdownProbes}), opened at the first and closed by {@link #build()}, or by the first
 * failure, after which Spark builds nothing.
 */
final class FlightSqlScanBuilder
    implements ScanBuilder,
        SupportsPushDownRequiredColumns,
        SupportsPushDownV2Filters,
        SupportsPushDownAggregates,
        SupportsPushDownLimit,
        SupportsPushDownOffset,
        SupportsPushDownTopN {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlScanBuilder.class);

  private final StructType schema;
  private final FlightSqlReadConfig config;
  private final Set<String> knownComparable;
  private final AtomicReference<ResolvedDialect> knownDialect;
  private final PushdownProbes probes;

  /**
   * Whether the read is split on the client into several queries, each selecting part of the source
   * rows (options partitionColumn/predicates): then an aggregate, a limit or a top-N is computed
   * per query and Spark must finish it, and an offset cannot be pushed at all, as in Spark's JDBC
   * source with numPartitions > 1.
   */
  private final boolean clientPartitioned;

  private PushdownContext context;
  private boolean contextResolved;

  /** The query as pushed so far; set when the context is resolved. */
  private PushedQuery pushed;

  // What Spark pushed, in Spark's terms, for pushedPredicates() and EXPLAIN; the SQL is in pushed.
  private final List<Predicate> pushedPredicates = new ArrayList<>();
  private Aggregation aggregation;
  private boolean aggregationComplete;
  private StructType aggregateSchema;
  private SortOrder[] topN;
  private StructType required;

  /**
   * @param knownComparable the columns whose values the server compares as Spark does, when the
   *     table knows its Arrow schema; null to ask the server when needed
   * @param knownDialect the table's dialect once a scan builder found it, shared by the builders of
   *     one table
   */
  FlightSqlScanBuilder(
      StructType schema,
      FlightSqlReadConfig config,
      Set<String> knownComparable,
      AtomicReference<ResolvedDialect> knownDialect) {
    this.schema = schema;
    this.config = config;
    this.knownComparable = knownComparable;
    this.knownDialect = knownDialect;
    this.clientPartitioned = config.partitioning().isClientSide();
    this.probes = new PushdownProbes(config);
  }

  /**
   * Runs one step of pushdown. A failure closes the probe session before it leaves the builder:
   * Spark then never calls {@link #build()}.
   */
  private <T> T probing(Supplier<T> step) {
    try {
      return step.get();
    } catch (RuntimeException | Error e) {
      probes.closeAfter(e);
      throw e;
    }
  }

  /** The context, or null when nothing may be pushed into this read. */
  private PushdownContext context() {
    if (!contextResolved) {
      context = PushdownContext.resolve(config, schema, knownComparable, knownDialect, probes);
      pushed = PushdownContext.base(context, config);
      contextResolved = true;
    }
    return context;
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    return probing(() -> remainingPredicates(predicates));
  }

  private Predicate[] remainingPredicates(Predicate[] predicates) {
    if (!config.pushDownPredicate() || predicates.length == 0 || context() == null) {
      return predicates;
    }
    List<Predicate> remaining = new ArrayList<>();
    List<Predicate> candidates = new ArrayList<>();
    List<String> conditions = new ArrayList<>();
    for (Predicate predicate : predicates) {
      Optional<String> sql = context.expressions.predicate(predicate);
      if (sql.isPresent()) {
        candidates.add(predicate);
        conditions.add(sql.get());
      } else {
        remaining.add(predicate);
      }
    }
    if (!conditions.isEmpty() && !serverTakes(pushed.where(conditions))) {
      // One of them is refused: each is tried alone, and only those the server takes are pushed.
      List<Predicate> taken = new ArrayList<>();
      List<String> takenSql = new ArrayList<>();
      for (int i = 0; i < conditions.size(); i++) {
        if (serverTakes(pushed.where(Collections.singletonList(conditions.get(i))))) {
          taken.add(candidates.get(i));
          takenSql.add(conditions.get(i));
        } else {
          remaining.add(candidates.get(i));
        }
      }
      candidates = taken;
      conditions = takenSql;
    }
    pushedPredicates.addAll(candidates);
    pushed = pushed.where(conditions);
    return remaining.toArray(new Predicate[0]);
  }

  /**
   * Whether the server takes {@code candidate}: always where the dialect was chosen by the user or
   * by the server's name; where it is a guess ({@link ResolvedDialect#sqlGuessed()}), whether the
   * server runs it with {@code 1 = 0} added ({@link PushdownProbes#takes}).
   */
  private boolean serverTakes(PushedQuery candidate) {
    return !context.resolved.sqlGuessed() || probes.takes(candidate);
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pushedPredicates.toArray(new Predicate[0]);
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.required = requiredSchema;
  }

  @Override
  public boolean supportCompletePushDown(Aggregation aggregation) {
    return probing(() -> completes(aggregation));
  }

  private boolean completes(Aggregation aggregation) {
    if (clientPartitioned) {
      return false;
    }
    for (AggregateFunc f : Aggregations.functions(aggregation)) {
      // Spark then divides a pushed SUM by a pushed COUNT itself, at its own decimal scale.
      if (f instanceof Avg && (context() == null || !context.expressions.avgIsExact((Avg) f))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean pushAggregation(Aggregation agg) {
    return probing(() -> aggregates(agg));
  }

  private boolean aggregates(Aggregation agg) {
    if (!config.pushDownAggregate() || context() == null) {
      return false;
    }
    boolean complete = completes(agg);
    if (!complete && !Aggregations.mergeable(agg)) {
      return false;
    }
    Optional<PushedQuery> composed = Aggregations.compose(agg, context, pushed);
    if (!composed.isPresent()) {
      return false;
    }
    PushedQuery candidate = composed.get();
    Optional<StructType> result =
        probes.aggregateSchema(
            candidate,
            Aggregations.columns(agg),
            Aggregations.groupBys(agg).length == 0 && context.resolved.sqlGuessed());
    if (!result.isPresent()) {
      return false;
    }
    this.aggregation = agg;
    this.aggregationComplete = complete;
    this.aggregateSchema = result.get();
    this.pushed = candidate;
    return true;
  }

  @Override
  public boolean pushLimit(int rows) {
    return probing(() -> limits(rows));
  }

  private boolean limits(int rows) {
    if (!config.pushDownLimit()
        || context() == null
        || rows <= 0
        || (aggregation != null && !aggregationComplete)) {
      return false;
    }
    // Spark pushes an offset first only for OFFSET n LIMIT m, whose limit counts after the
    // offset, which is also what SQL's LIMIT ... OFFSET means.
    PushedQuery candidate = pushed.limit(rows);
    if (!context.dialect.limitOffset(rows, pushed.offset()).isPresent()
        || !serverTakes(candidate)) {
      return false;
    }
    pushed = candidate;
    return true;
  }

  @Override
  public boolean pushOffset(int rows) {
    return probing(() -> offsets(rows));
  }

  private boolean offsets(int rows) {
    if (!config.pushDownOffset()
        || clientPartitioned
        || context() == null
        || rows <= 0
        || (aggregation != null && !aggregationComplete)
        || topN != null) {
      return false;
    }
    // A limit pushed before an offset counts the skipped rows too (LIMIT m OFFSET n is pushed as
    // limit m + n, then offset n); SQL's LIMIT counts after the offset.
    int limit = pushed.limit();
    if (limit >= 0) {
      limit -= rows;
      if (limit <= 0) {
        return false;
      }
    }
    PushedQuery candidate = pushed.limit(limit).offset(rows);
    if (!context.dialect.limitOffset(limit, rows).isPresent() || !serverTakes(candidate)) {
      return false;
    }
    pushed = candidate;
    return true;
  }

  @Override
  public boolean pushTopN(SortOrder[] orders, int rows) {
    return probing(() -> topRows(orders, rows));
  }

  private boolean topRows(SortOrder[] orders, int rows) {
    if (!config.pushDownTopN()
        || context() == null
        || rows <= 0
        || aggregation != null
        || pushed.offset() > 0) {
      return false;
    }
    List<String> items = new ArrayList<>();
    for (SortOrder order : orders) {
      Optional<String> sql = context.expressions.orderItem(order);
      if (!sql.isPresent()) {
        return false;
      }
      items.add(sql.get());
    }
    PushedQuery candidate = pushed.orderBy(items).limit(rows);
    if (!context.dialect.limitOffset(rows, 0).isPresent() || !serverTakes(candidate)) {
      return false;
    }
    topN = orders.clone();
    pushed = candidate;
    return true;
  }

  /** A limit is complete unless the read is split on the client. */
  @Override
  public boolean isPartiallyPushed() {
    // SupportsPushDownLimit and SupportsPushDownTopN share this method. For a top-N the server's
    // rows are the right ones, but a server may split them into endpoints without ordering the
    // endpoints among themselves (FlightInfo.ordered): Spark sorts those few rows again.
    return clientPartitioned || topN != null;
  }

  /** Builds the scan, and ends the probe session: nothing more is asked of the server here. */
  @Override
  public Scan build() {
    Scan scan = probing(this::scan);
    probes.close();
    return scan;
  }

  private Scan scan() {
    if (clientPartitioned || (required != null && !sameColumns(required, schema))) {
      // Column pruning has no option of its own: it needs only the dialect's quoting. Each
      // client partition's condition goes into a composed query.
      context();
    }
    PushedQuery query = pushed != null ? pushed : PushdownContext.base(null, config);
    StructType readSchema;
    if (context == null) {
      readSchema = schema;
    } else if (aggregation != null) {
      readSchema = aggregateSchema;
    } else {
      readSchema = context.prunedSchema(schema, required);
      if (!sameColumns(readSchema, schema)) {
        List<String> select = new ArrayList<>();
        for (StructField field : readSchema.fields()) {
          select.add(context.columns.resolve(new String[] {field.name()}).get().sql());
        }
        query = query.select(select);
      }
    }
    String description = describe(query, readSchema);
    LOG.debug("Read of {} sends: {}", config.displayName(), query.sql());
    return new FlightSqlScan(readSchema, schema, config, query, description);
  }

  private static boolean sameColumns(StructType a, StructType b) {
    return Arrays.equals(a.fieldNames(), b.fieldNames());
  }

  /** What EXPLAIN and the Spark UI show. */
  private String describe(PushedQuery query, StructType readSchema) {
    ScanDescription description =
        new ScanDescription(
            config.uri(), context == null ? null : context.dialect.name(), pushedPredicates);
    if (aggregation != null) {
      description.aggregation(aggregation, aggregationComplete);
    }
    description.limit(topN, query.limit()).offset(query.offset());
    if (clientPartitioned) {
      description.partitioning(config.partitioning());
    }
    return description.text(readSchema, query.sql());
  }
}
