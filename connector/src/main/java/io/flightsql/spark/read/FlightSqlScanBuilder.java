package io.flightsql.spark.read;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.sql.JoinSql;
import io.flightsql.spark.sql.PushedQuery;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownOffset;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownTableSample;
import org.apache.spark.sql.connector.read.SupportsPushDownTopN;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;

/**
 * Builds the scan of one read, and with it the query the server runs: Spark pushes the columns it
 * needs, its filters, a sample, an aggregation, a limit, an offset and a top-N here, and each is
 * taken when its option allows it and the read's {@link Dialect} can write it so that the server
 * computes what Spark would. What is taken so far is one {@link PushedRead} around one immutable
 * {@link PushedQuery}. Driver only; not Serializable (the {@link PushedQuery} it builds is).
 *
 * <p>Every question to the server goes through one session ({@link PushdownProbes}), opened at the
 * first and closed by {@link #build()}, or by the first failure, after which Spark builds nothing.
 *
 * <p>On Spark 4.1 and later the table makes a {@code JoinPushdownScanBuilder} instead, which also
 * takes the join of two reads of one server ({@link #joinableWith}, {@link #join}); this builder
 * then reads the joined query.
 */
class FlightSqlScanBuilder
    implements ScanBuilder,
        SupportsPushDownRequiredColumns,
        SupportsPushDownV2Filters,
        SupportsPushDownAggregates,
        SupportsPushDownLimit,
        SupportsPushDownOffset,
        SupportsPushDownTopN,
        SupportsPushDownTableSample {
  private final FlightSqlReadConfig config;
  private final PushdownProbes probes;
  private final PushedRead read;

  /**
   * Whether the filters pushed into this read stay in Spark's plan too, though option {@code
   * keepFiltersInSpark} is off: {@link RuntimeFilterSources} asks it of a filtered read that a join
   * may prune its other side by.
   */
  private boolean filtersKeptInSpark;

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
    this.config = config;
    this.probes = new PushdownProbes(config);
    this.read = new PushedRead(schema, config, knownComparable, knownDialect, probes);
  }

  /**
   * Makes the read select its columns by name: the table's columns are a schema the user gave, not
   * the source's in its order ({@link UserSchema}). Called once, before Spark pushes anything.
   */
  final void selectByName() {
    read.selectByName();
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

  /** Keeps the filters pushed into this read in Spark's plan too; see {@link #pushPredicates}. */
  final FlightSqlScanBuilder keepingFiltersInSpark() {
    filtersKeptInSpark = true;
    return this;
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    Predicate[] remaining = probing(() -> read.remainingPredicates(predicates));
    // Kept in Spark too, a filter shows Spark's dynamic pruning a selective dimension.
    return filtersKeptInSpark ? predicates : remaining;
  }

  @Override
  public Predicate[] pushedPredicates() {
    return read.pushedPredicates();
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    read.pruneColumns(requiredSchema);
  }

  @Override
  public boolean supportCompletePushDown(Aggregation aggregation) {
    return probing(() -> read.completes(aggregation));
  }

  @Override
  public boolean pushAggregation(Aggregation aggregation) {
    return probing(() -> read.aggregates(aggregation));
  }

  @Override
  public boolean pushLimit(int rows) {
    return probing(() -> read.limits(rows));
  }

  @Override
  public boolean pushOffset(int rows) {
    return probing(() -> read.offsets(rows));
  }

  @Override
  public boolean pushTopN(SortOrder[] orders, int rows) {
    return probing(() -> read.topRows(orders, rows));
  }

  /** A limit is complete unless the read is split on the client; a top-N is sorted again. */
  @Override
  public boolean isPartiallyPushed() {
    // SupportsPushDownLimit and SupportsPushDownTopN share this method.
    return read.partiallyPushed();
  }

  /** Takes a sample of a {@code dbtable} read where the dialect has a clause for it. */
  @Override
  public boolean pushTableSample(
      double lowerBound, double upperBound, boolean withReplacement, long seed) {
    // Only df.sample(fraction): a sample with replacement has no SQL, and one of randomSplit's
    // splits of the same random numbers would overlap the others if the server drew its own.
    return !withReplacement
        && lowerBound == 0
        && upperBound > 0
        && upperBound <= 1
        && probing(() -> read.samples(upperBound, seed));
  }

  /**
   * Whether this read and {@code other} can be joined on the server: the same server, user, session
   * defaults and type mapping, both allowing it (option {@code pushDownJoin}), a dialect
   * established for both and the same, and nothing pushed into either yet but filters and a sample.
   */
  final boolean joinableWith(FlightSqlScanBuilder other) {
    return probing(
        () ->
            config.joinableWith(other.config)
                && read.joinable()
                && other.read.joinable()
                && read.sameDialect(other.read));
  }

  /**
   * Joins {@code other} into this read ({@link JoinPushdown}): afterwards this builder reads the
   * joined query, whose columns are {@code leftColumns} then {@code rightColumns} under their names
   * in the join, and {@code other}, which Spark drops, has closed its session.
   *
   * @return whether the join was pushed
   */
  final boolean join(
      FlightSqlScanBuilder other,
      JoinSql.Kind kind,
      List<JoinPushdown.JoinColumn> leftColumns,
      List<JoinPushdown.JoinColumn> rightColumns,
      Predicate condition) {
    return probing(
        () -> {
          if (!joinableWith(other)) {
            return false;
          }
          Optional<JoinPushdown.Joined> joined =
              JoinPushdown.join(
                  config,
                  read.side(leftColumns),
                  other.read.side(rightColumns),
                  kind,
                  condition,
                  probes);
          if (!joined.isPresent()) {
            return false;
          }
          read.joined(joined.get());
          other.probes.close();
          return true;
        });
  }

  /** Builds the scan, and ends the probe session: nothing more is asked of the server here. */
  @Override
  public Scan build() {
    Scan scan = probing(read::scan);
    probes.close();
    return scan;
  }
}
