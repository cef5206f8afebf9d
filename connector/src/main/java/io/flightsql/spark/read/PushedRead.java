package io.flightsql.spark.read;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.sql.RuntimeFilterSql;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One read as pushed so far: the columns of the relation it reads (the source's, or a join's), the
 * dialect context, the query composed so far as one immutable {@link PushedQuery}, and what Spark
 * pushed in its own terms, for EXPLAIN. Each step composes the next candidate query and keeps it
 * only where its option allows it, the dialect can write it so that the server computes what Spark
 * would, and, for a guessed dialect, the server takes it; at the end, the scan is assembled from
 * what was taken ({@link #scan()}). The Spark-facing side is {@link FlightSqlScanBuilder}'s. Driver
 * only; not thread-safe, like the builder.
 *
 * <p>The dialect, and which columns the server compares as Spark does, are found the first time
 * something could be pushed (GetSqlInfo, and the query's Arrow schema when the table did not bring
 * it); a server that cannot tell gets nothing pushed.
 */
final class PushedRead {
  private static final Logger LOG = LoggerFactory.getLogger(PushedRead.class);

  private final FlightSqlReadConfig config;
  private final Set<String> knownComparable;
  private final AtomicReference<ResolvedDialect> knownDialect;
  private final PushdownProbes probes;

  /**
   * Whether the client splits the read into queries (partitionColumn/predicates): aggregates,
   * limits and top-N are then per query, for Spark to finish, and an offset is not pushed.
   */
  private final boolean clientPartitioned;

  /** The columns of the relation read: the source's, or the join's once a join is pushed. */
  private StructType schema;

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
  private String sample;

  /** The join pushed into this read, for EXPLAIN; null for none. */
  private String join;

  /** Whether the columns are selected by name: a schema the user gave, not the source's order. */
  private boolean byName;

  /**
   * @param knownComparable the columns whose values the server compares as Spark does, when the
   *     table knows its Arrow schema; null to ask the server when needed
   * @param knownDialect the table's dialect once a scan builder found it, shared by the builders of
   *     one table
   * @param probes the session every question to the server goes through
   */
  PushedRead(
      StructType schema,
      FlightSqlReadConfig config,
      Set<String> knownComparable,
      AtomicReference<ResolvedDialect> knownDialect,
      PushdownProbes probes) {
    this.schema = schema;
    this.config = config;
    this.knownComparable = knownComparable;
    this.knownDialect = knownDialect;
    this.probes = probes;
    this.clientPartitioned = config.partitioning().isClientSide();
  }

  /** Selects the read's columns by name, whatever is pruned (see {@link UserSchema}). */
  void selectByName() {
    byName = true;
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

  /** Takes the filters that can be pushed; returns those Spark still evaluates. */
  Predicate[] remainingPredicates(Predicate[] predicates) {
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
    // Kept in Spark too, a filter shows Spark's dynamic pruning a selective dimension.
    return config.optimizer().keepFiltersInSpark()
        ? predicates
        : remaining.toArray(new Predicate[0]);
  }

  /**
   * Whether the server takes {@code candidate}: always where the dialect was chosen by the user or
   * by the server's name; where it is a guess ({@link ResolvedDialect#sqlGuessed()}), whether the
   * server runs it with {@code 1 = 0} added ({@link PushdownProbes#takes}).
   */
  private boolean serverTakes(PushedQuery candidate) {
    return !context.resolved.sqlGuessed() || probes.takes(candidate);
  }

  Predicate[] pushedPredicates() {
    return pushedPredicates.toArray(new Predicate[0]);
  }

  void pruneColumns(StructType requiredSchema) {
    this.required = requiredSchema;
  }

  /** Whether the server's answer to an aggregation is the final one: Spark only projects it. */
  boolean completes(Aggregation aggregation) {
    return !clientPartitioned && Aggregations.complete(aggregation, context());
  }

  boolean aggregates(Aggregation agg) {
    if (!config.pushDownAggregate() || context() == null) {
      return false;
    }
    boolean complete = completes(agg);
    if (!complete && !Aggregations.mergeable(agg, context)) {
      return false;
    }
    Optional<Aggregations.Composed> composed = Aggregations.compose(agg, context, pushed);
    if (!composed.isPresent()) {
      return false;
    }
    PushedQuery candidate = composed.get().query;
    Optional<StructType> result =
        probes.aggregateSchema(
            candidate,
            composed.get().expected,
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

  boolean limits(int rows) {
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

  boolean offsets(int rows) {
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

  boolean topRows(SortOrder[] orders, int rows) {
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

  /** Whether Spark must apply a pushed limit or top-N again. */
  boolean partiallyPushed() {
    // For a top-N the server's rows are the right ones, but a server may split them into endpoints
    // without ordering the endpoints among themselves (FlightInfo.ordered): Spark sorts those few
    // rows again.
    return clientPartitioned || topN != null;
  }

  /** Takes a sample of each row with chance {@code fraction} where the dialect writes one. */
  boolean samples(double fraction, long seed) {
    if (!config.optimizer().pushDownTableSample()
        || context() == null
        || !pushed.overTable()
        || pushed.composed()) {
      return false;
    }
    Optional<String> clause = context.dialect.tableSample(fraction, seed);
    if (!clause.isPresent()) {
      return false;
    }
    PushedQuery candidate = pushed.sample(clause.get());
    if (!probes.takes(candidate)) {
      return false;
    }
    sample = clause.get();
    pushed = candidate;
    return true;
  }

  /**
   * Whether this read can take part in a join on the server: a dialect is established and nothing
   * is pushed yet but filters and a sample.
   */
  boolean joinable() {
    return !clientPartitioned
        && aggregation == null
        && topN == null
        && context() != null
        && pushed.rowsOnly();
  }

  /** Whether both reads speak the same dialect; only once both are {@link #joinable()}. */
  boolean sameDialect(PushedRead other) {
    return context.dialect.equals(other.context.dialect);
  }

  /** This read as one side of a join, giving the join {@code columns}. */
  JoinPushdown.Side side(List<JoinPushdown.JoinColumn> columns) {
    String name = join != null ? "(" + join + ")" : config.displayName();
    return new JoinPushdown.Side(context, pushed, schema, name, columns);
  }

  /** Reads the join of this read with another from now on. */
  void joined(JoinPushdown.Joined joined) {
    schema = joined.schema;
    context = joined.context;
    pushed = joined.query;
    join = joined.description;
    pushedPredicates.clear();
    sample = null;
  }

  /** The scan of what was taken. */
  Scan scan() {
    if (byName || clientPartitioned || (required != null && !sameColumns(required, schema))) {
      // Column pruning has no option of its own: it needs only the dialect's quoting. Each
      // client partition's condition goes into a composed query.
      context();
    }
    PushedQuery query = pushed != null ? pushed : PushdownContext.base(null, config);
    StructType readSchema;
    if (context == null && byName) {
      throw UserSchema.unselectable(config);
    } else if (context == null) {
      readSchema = schema;
    } else if (aggregation != null) {
      readSchema = aggregateSchema;
    } else {
      readSchema = context.prunedSchema(schema, required);
      if (byName || !sameColumns(readSchema, schema)) {
        List<String> select = new ArrayList<>();
        for (StructField field : readSchema.fields()) {
          select.add(context.columns.resolve(new String[] {field.name()}).get().sql());
        }
        query = query.select(select);
      }
    }
    LOG.debug("Read of {} sends: {}", config.displayName(), query.sql());
    ScanPlan plan = new ScanPlan(config, query, readSchema, schema, context != null);
    boolean oneRow = Aggregations.oneRow(aggregation, query);
    return new FlightSqlScan(
        readSchema, config, plan, runtimeFilters(query), description(query), oneRow);
  }

  /**
   * How Spark's runtime filters are written into this read's query, or null where it takes none: a
   * filter must only drop rows of the result, which an aggregate, a limit or an ordering would
   * change, and a read split by the client on a guessed dialect has no plan to fall back on.
   */
  private RuntimeFilterSql runtimeFilters(PushedQuery query) {
    if (!config.optimizer().pushDownRuntimeFilter()
        || context == null
        || aggregation != null
        || !query.rowsOnly()
        || (clientPartitioned && context.resolved.sqlGuessed())) {
      return null;
    }
    return new RuntimeFilterSql(
        context.dialect, context.columns, config.optimizer().runtimeFilterMaxValues());
  }

  private static boolean sameColumns(StructType a, StructType b) {
    return Arrays.equals(a.fieldNames(), b.fieldNames());
  }

  /** What EXPLAIN and the Spark UI show, but the schema and SQL, which the scan adds. */
  private ScanDescription description(PushedQuery query) {
    ScanDescription description =
        new ScanDescription(
            config.uri(), context == null ? null : context.dialect.name(), pushedPredicates);
    description.join(join).sample(sample);
    if (aggregation != null) {
      description.aggregation(aggregation, aggregationComplete);
    }
    description.limit(topN, query.limit()).offset(query.offset());
    if (clientPartitioned) {
      description.partitioning(config.partitioning());
    }
    return description;
  }
}
