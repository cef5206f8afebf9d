package io.flightsql.spark.read;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.ServerFacts;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.types.ComparableColumns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Avg;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
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
 * Spark would. Driver only; not Serializable (the {@link PushedQuery} it builds is).
 *
 * <p>The dialect, and which columns the server compares as Spark does, are found the first time
 * something could be pushed (GetSqlInfo, and the query's Arrow schema when the table did not bring
 * it); a server that cannot tell gets nothing pushed.
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

  /** The name the server gives the i-th pushed aggregate's column. */
  private static final String AGGREGATE_ALIAS = "flightsql_agg_";

  private final StructType schema;
  private final FlightSqlReadConfig config;
  private final Set<String> knownComparable;
  private final AtomicReference<Dialect> knownDialect;

  /**
   * Whether the read is split on the client into several queries, each selecting part of the source
   * rows (options partitionColumn/predicates): then an aggregate, a limit or a top-N is computed
   * per query and Spark must finish it, and an offset cannot be pushed at all, as in Spark's JDBC
   * source with numPartitions > 1.
   */
  private final boolean clientPartitioned;

  private PushdownContext context;
  private boolean contextResolved;

  private final List<Predicate> pushedPredicates = new ArrayList<>();
  private final List<String> where = new ArrayList<>();
  private StructType required;
  private Aggregation aggregation;
  private boolean aggregationComplete;
  private List<String> aggregateSelect;
  private List<String> groupBy;
  private StructType aggregateSchema;
  private int limit = -1;
  private int offset;
  private SortOrder[] topN;
  private List<String> orderBy = Collections.emptyList();

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
      AtomicReference<Dialect> knownDialect) {
    this.schema = schema;
    this.config = config;
    this.knownComparable = knownComparable;
    this.knownDialect = knownDialect;
    this.clientPartitioned = config.partitioning().isClientSide();
  }

  /** The context, or null when nothing may be pushed into this read. */
  private PushdownContext context() {
    if (!contextResolved) {
      contextResolved = true;
      context = PushdownContext.resolve(config, schema, knownComparable, knownDialect);
    }
    return context;
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
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
    if (!conditions.isEmpty()
        && !serverTakes(PushdownContext.base(context, config).where(where).where(conditions))) {
      // One of them is refused: each is tried alone, and only those the server takes are pushed.
      List<Predicate> taken = new ArrayList<>();
      List<String> takenSql = new ArrayList<>();
      for (int i = 0; i < conditions.size(); i++) {
        List<String> one = Collections.singletonList(conditions.get(i));
        if (serverTakes(PushdownContext.base(context, config).where(where).where(one))) {
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
    where.addAll(conditions);
    return remaining.toArray(new Predicate[0]);
  }

  /**
   * Whether the server takes {@code candidate}: always where the dialect was chosen by the user or
   * by the server's name; where it is a guess ({@link Dialect#sqlGuessed()}), whether the server
   * runs the query with {@code 1 = 0} added (which returns no row), remembered per server and query
   * in this JVM. A refusal is logged as a warning naming the refused SQL, and the work stays with
   * Spark, so that pushdown never turns a read that works into one that fails.
   */
  private boolean serverTakes(PushedQuery candidate) {
    if (!context.dialect.sqlGuessed()) {
      return true;
    }
    String probe = candidate.where(Collections.singletonList("(1 = 0)")).sql();
    return ServerFacts.of(config.connection())
        .takes(
            probe,
            () -> {
              try (FlightSqlSession session =
                  FlightSqlSession.open(config.connection(), "pushdown-check")) {
                session.resultSchema(probe);
                return true;
              } catch (RuntimeException e) {
                boolean answered = !FlightErrors.isAboutTheCall(e);
                LOG.warn(
                    "Not pushed into the read of {}: {} {} {} ({}); Spark does that work instead",
                    config.displayName(),
                    config.uri(),
                    answered ? "refused" : "could not try",
                    probe,
                    e.getMessage());
                return answered ? Boolean.FALSE : null;
              }
            });
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
    if (!config.pushDownAggregate() || context() == null) {
      return false;
    }
    boolean complete = supportCompletePushDown(agg);
    if (!complete && !partialMergeable(agg)) {
      return false;
    }
    List<String> groups = new ArrayList<>();
    List<String> select = new ArrayList<>();
    for (Expression e : Aggregations.groupBys(agg)) {
      Optional<String> sql = context.expressions.groupBy(e);
      if (!sql.isPresent()) {
        return false;
      }
      groups.add(sql.get());
      select.add(sql.get());
    }
    AggregateFunc[] functions = Aggregations.functions(agg);
    for (int i = 0; i < functions.length; i++) {
      Optional<String> sql = context.expressions.aggregate(functions[i]);
      if (!sql.isPresent()) {
        return false;
      }
      select.add(sql.get() + " AS " + context.dialect.identifier(AGGREGATE_ALIAS + i).get());
    }
    PushedQuery candidate =
        PushdownContext.base(context, config).where(where).select(select).groupBy(groups);
    // As Spark's JDBC source does: the server says what the aggregated query returns, without
    // computing it, or refuses it; either way before Spark relies on it.
    String probe = candidate.where(Collections.singletonList("(1 = 0)")).sql();
    StructType result;
    try (FlightSqlSession session =
        FlightSqlSession.open(config.connection(), "aggregate-schema")) {
      Schema arrow = session.resultSchema(probe);
      result = ArrowToSpark.toSparkSchema(arrow, config.typeOptions());
      if (result.size() != select.size()
          || ComparableColumns.of(arrow, result).size() != result.size()) {
        LOG.info("Aggregates not pushed: the server answers {} with {}", probe, arrow);
        return false;
      }
      if (groups.isEmpty() && context.dialect.sqlGuessed() && !oneRowOfNothing(session, probe)) {
        return false;
      }
    } catch (RuntimeException e) {
      LOG.info("Aggregates not pushed: the server refused {}: {}", probe, e.getMessage());
      return false;
    }
    this.aggregation = agg;
    this.aggregationComplete = complete;
    this.aggregateSelect = select;
    this.groupBy = groups;
    this.aggregateSchema = result;
    return true;
  }

  /**
   * Whether the server answers aggregates without GROUP BY over no rows with one row, as SQL and
   * Spark do (COUNT 0, the others NULL). Some do not (Deephaven answers none), and Spark would then
   * show no row where it should show one, so the aggregates stay with Spark there.
   */
  private boolean oneRowOfNothing(FlightSqlSession session, String probe) {
    return ServerFacts.of(config.connection())
        .takes(
            "one row of: " + probe,
            () -> {
              long rows;
              try {
                rows = session.countRows(probe);
              } catch (RuntimeException e) {
                LOG.info("Aggregates not pushed: the server refused {}: {}", probe, e.getMessage());
                return FlightErrors.isAboutTheCall(e) ? null : Boolean.FALSE;
              }
              if (rows != 1) {
                LOG.warn(
                    "Aggregates not pushed into the read of {}: {} answers {} with {} rows, where SQL"
                        + " and Spark give one",
                    config.displayName(),
                    config.uri(),
                    probe,
                    rows);
              }
              return rows == 1;
            });
  }

  /** Whether Spark can merge per-query results of these aggregates (no DISTINCT, no AVG). */
  private static boolean partialMergeable(Aggregation agg) {
    for (AggregateFunc f : Aggregations.functions(agg)) {
      if (f instanceof Avg
          || (f instanceof Count && ((Count) f).isDistinct())
          || (f instanceof Sum && ((Sum) f).isDistinct())) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean pushLimit(int rows) {
    if (!config.pushDownLimit()
        || context() == null
        || rows <= 0
        || (aggregation != null && !aggregationComplete)) {
      return false;
    }
    if (!context.dialect.limitOffset(rows, offset).isPresent()
        || !serverTakes(current().limit(rows))) {
      return false;
    }
    // Spark pushes an offset first only for OFFSET n LIMIT m, whose limit counts after the
    // offset, which is also what SQL's LIMIT ... OFFSET means.
    limit = rows;
    return true;
  }

  @Override
  public boolean pushOffset(int rows) {
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
    int newLimit = limit;
    if (limit >= 0) {
      newLimit = limit - rows;
      if (newLimit <= 0) {
        return false;
      }
    }
    if (!context.dialect.limitOffset(newLimit, rows).isPresent()
        || !serverTakes(current().limit(newLimit).offset(rows))) {
      return false;
    }
    limit = newLimit;
    offset = rows;
    return true;
  }

  @Override
  public boolean pushTopN(SortOrder[] orders, int rows) {
    if (!config.pushDownTopN()
        || context() == null
        || rows <= 0
        || aggregation != null
        || offset > 0) {
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
    if (!context.dialect.limitOffset(rows, 0).isPresent()
        || !serverTakes(current().orderBy(items).limit(rows))) {
      return false;
    }
    topN = orders.clone();
    orderBy = items;
    limit = rows;
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

  /** The query as pushed so far, before the step being tried. */
  private PushedQuery current() {
    PushedQuery query = PushdownContext.base(context, config).where(where);
    query =
        aggregation != null
            ? query.select(aggregateSelect).groupBy(groupBy)
            : query.orderBy(orderBy);
    return query.limit(limit).offset(offset);
  }

  @Override
  public Scan build() {
    if (clientPartitioned || (required != null && !sameColumns(required, schema))) {
      // Column pruning has no option of its own: it needs only the dialect's quoting. Each
      // client partition's condition goes into a composed query.
      context();
    }
    PushedQuery query = PushdownContext.base(context, config);
    StructType readSchema;
    if (context == null) {
      readSchema = schema;
    } else if (aggregation != null) {
      query = query.where(where).select(aggregateSelect).groupBy(groupBy);
      readSchema = aggregateSchema;
    } else {
      readSchema = prunedSchema();
      if (!sameColumns(readSchema, schema)) {
        List<String> select = new ArrayList<>();
        for (StructField field : readSchema.fields()) {
          select.add(context.columns.resolve(new String[] {field.name()}).get().sql());
        }
        query = query.select(select);
      }
      query = query.where(where).orderBy(orderBy);
    }
    query = query.limit(limit).offset(offset);
    String description = describe(query, readSchema);
    LOG.debug("Read of {} sends: {}", config.displayName(), query.sql());
    return new FlightSqlScan(readSchema, schema, config, query, description);
  }

  /**
   * The columns Spark needs, each with its whole type (nested fields are not pruned on the server);
   * when Spark needs none, the narrowest one, since a result has at least one column.
   */
  private StructType prunedSchema() {
    if (required == null) {
      return schema;
    }
    List<StructField> fields = new ArrayList<>();
    for (StructField field : required.fields()) {
      context
          .columns
          .resolve(new String[] {field.name()})
          .ifPresent(column -> fields.add(schema.fields()[schema.fieldIndex(column.name())]));
    }
    if (fields.isEmpty() && schema.size() > 0) {
      StructField narrowest = schema.fields()[0];
      for (StructField field : schema.fields()) {
        if (field.dataType().defaultSize() < narrowest.dataType().defaultSize()) {
          narrowest = field;
        }
      }
      fields.add(narrowest);
    }
    return new StructType(fields.toArray(new StructField[0]));
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
    description.limit(topN, limit).offset(offset);
    if (clientPartitioned) {
      description.partitioning(config.partitioning());
    }
    return description.text(readSchema, query.sql());
  }
}
