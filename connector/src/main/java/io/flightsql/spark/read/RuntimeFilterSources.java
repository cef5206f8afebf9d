package io.flightsql.spark.read;

import io.flightsql.spark.config.ReadOptions;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.collection.Iterator;

/**
 * A rule of Spark's optimizer, run before Spark pushes operators into scans (a pre-CBO rule of
 * {@code io.flightsql.spark.FlightSqlExtensions}), that lets Spark's dynamic pruning see the filter
 * of a star join's dimension read. Spark filters the fact read at run time only when the other side
 * of the join shows a selective {@code Filter} in its plan ({@code PartitionPruning}); a filter
 * pushed whole into the dimension's scan is gone from it. This rule asks each read of this
 * connector that sits right under a join, below nothing but projections and filters, one of which
 * tests more than NULLs, to keep its pushed filters in Spark's plan too (scan option {@code
 * keepFiltersInSpark=true}, unless the read sets that option itself).
 *
 * <p>That costs such a read nothing that could have been pushed: an aggregate, a limit, an offset
 * or a top-N sits between a read and its join, never under it, and the rule does not reach a read
 * below one; the kept filters are checked again on the rows the server sends. It costs joins pushed
 * to the server (Spark 4.1's {@code spark.sql.optimizer.datasourceV2JoinPushdown}, off by default),
 * which need both sides without filters left in Spark: the rule does nothing while that is on, nor
 * while dynamic pruning is off.
 *
 * <p>Driver only; it changes only the options of the reads it marks, copied with Spark's own {@code
 * makeCopy} so that every other field of the relation stays as it was.
 */
public final class RuntimeFilterSources extends Rule<LogicalPlan> {
  /** A table of this connector, whose scans keep their filters in Spark when their options ask. */
  public interface Source extends Table {}

  private static final String KEEP = ReadOptions.KEEP_FILTERS_IN_SPARK.name();

  private final SparkSession session;

  public RuntimeFilterSources(SparkSession session) {
    this.session = session;
  }

  /** Whether a scan's options ask its pushed filters to stay in Spark's plan too. */
  static boolean keepsFilters(CaseInsensitiveStringMap options) {
    return "true".equalsIgnoreCase(options.get(KEEP));
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    boolean pruning =
        "true"
            .equalsIgnoreCase(
                session.conf().get("spark.sql.optimizer.dynamicPartitionPruning.enabled", "true"));
    boolean joinPushdown =
        "true"
            .equalsIgnoreCase(
                session.conf().get("spark.sql.optimizer.datasourceV2JoinPushdown", "false"));
    return pruning && !joinPushdown ? visit(plan) : plan;
  }

  private LogicalPlan visit(LogicalPlan plan) {
    LogicalPlan visited = plan.mapChildren(this::visit);
    return visited instanceof Join ? visited.mapChildren(side -> mark(side, false)) : visited;
  }

  /** {@code plan} with the read under its projections and filters marked, when one is selective. */
  private LogicalPlan mark(LogicalPlan plan, boolean filtered) {
    if (plan instanceof Filter) {
      boolean selective = filtered || !onlyNullTests(((Filter) plan).condition());
      return plan.mapChildren(child -> mark(child, selective));
    }
    if (plan instanceof Project) {
      return plan.mapChildren(child -> mark(child, filtered));
    }
    if (filtered && plan instanceof DataSourceV2Relation) {
      DataSourceV2Relation relation = (DataSourceV2Relation) plan;
      if (relation.table() instanceof Source && relation.options().get(KEEP) == null) {
        return keepingFilters(relation);
      }
    }
    return plan;
  }

  /**
   * Whether a condition tests only that columns are not NULL, as the filters Spark infers on the
   * keys of every inner join do: such a filter does not make pruning worthwhile.
   */
  private static boolean onlyNullTests(Expression condition) {
    if (condition instanceof And) {
      return onlyNullTests(((And) condition).left()) && onlyNullTests(((And) condition).right());
    }
    return condition instanceof IsNotNull;
  }

  /** The relation with {@code keepFiltersInSpark=true} added to its options. */
  private static LogicalPlan keepingFilters(DataSourceV2Relation relation) {
    Map<String, String> options = new HashMap<>(relation.options().asCaseSensitiveMap());
    options.put(KEEP, "true");
    CaseInsensitiveStringMap marked = new CaseInsensitiveStringMap(options);
    // The relation's constructor differs between Spark versions (4.1 adds a time-travel spec), so
    // its own fields are copied as they are, with the options replaced.
    Object[] fields = new Object[relation.productArity()];
    Iterator<Object> values = relation.productIterator();
    for (int i = 0; values.hasNext(); i++) {
      Object value = values.next();
      fields[i] = value instanceof CaseInsensitiveStringMap ? marked : value;
    }
    return relation.makeCopy(fields);
  }
}
