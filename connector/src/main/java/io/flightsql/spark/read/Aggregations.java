package io.flightsql.spark.read;

import io.flightsql.spark.sql.AggregateSql;
import io.flightsql.spark.sql.PushedQuery;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Avg;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The parts of Spark's {@link Aggregation}, and the query that computes one on the server. Spark
 * 4's Aggregation is a Java record, which code compiled for Java 11 (for Spark 3.5 clusters) cannot
 * call directly; Spark 3.5's is a class with the same accessors, so the calls go through reflection
 * on whichever is loaded.
 */
final class Aggregations {
  /** The name the server gives the i-th pushed aggregate's column. */
  static final String ALIAS = "flightsql_agg_";

  private Aggregations() {}

  /** The aggregate functions of an aggregation. */
  static AggregateFunc[] functions(Aggregation aggregation) {
    return (AggregateFunc[]) accessor(aggregation, "aggregateExpressions");
  }

  /** The GROUP BY expressions of an aggregation. */
  static Expression[] groupBys(Aggregation aggregation) {
    return (Expression[]) accessor(aggregation, "groupByExpressions");
  }

  /**
   * Whether a read of {@code query}, aggregated by {@code aggregation} (null for none), has exactly
   * one row: an aggregate without GROUP BY, with no offset after it; in a read split on the client,
   * each of its queries.
   */
  static boolean oneRow(Aggregation aggregation, PushedQuery query) {
    return aggregation != null && groupBys(aggregation).length == 0 && query.offset() == 0;
  }

  /**
   * Whether Spark can merge per-query results of these aggregates: no DISTINCT, no AVG, and no SUM
   * over a decimal, since Spark casts each partial sum to the column's own type, which a sum can
   * exceed (Spark's answer would be NULL or an error where its own sum is right).
   */
  static boolean mergeable(Aggregation aggregation, PushdownContext context) {
    for (AggregateFunc f : functions(aggregation)) {
      if (f instanceof Avg
          || (f instanceof Count && ((Count) f).isDistinct())
          || (f instanceof Sum && ((Sum) f).isDistinct())
          || context.aggregates.decimalSum(f)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the server computes these aggregates as Spark does, for Spark only to project them; not
   * where an AVG needs Spark to divide a pushed SUM by a pushed COUNT, at its own decimal scale.
   *
   * @param context the read's context, or null where nothing may be pushed
   */
  static boolean complete(Aggregation aggregation, PushdownContext context) {
    for (AggregateFunc f : functions(aggregation)) {
      if (f instanceof Avg && (context == null || !context.aggregates.avgIsExact((Avg) f))) {
        return false;
      }
    }
    return true;
  }

  /** An aggregated query, and the Spark types of its columns as Spark computes them. */
  static final class Composed {
    final PushedQuery query;
    final StructType expected;

    Composed(PushedQuery query, StructType expected) {
      this.query = query;
      this.expected = expected;
    }
  }

  /**
   * {@code query} aggregated: the GROUP BY columns and then each aggregate (named {@link #ALIAS}
   * and its position) in the select list, each asking for the type Spark's own aggregate has; empty
   * when the context cannot write one of them so.
   */
  static Optional<Composed> compose(
      Aggregation aggregation, PushdownContext context, PushedQuery query) {
    List<String> groups = new ArrayList<>();
    List<String> select = new ArrayList<>();
    List<StructField> expected = new ArrayList<>();
    Expression[] groupBys = groupBys(aggregation);
    for (int i = 0; i < groupBys.length; i++) {
      Optional<AggregateSql.Typed> sql = context.aggregates.groupBy(groupBys[i]);
      if (!sql.isPresent()) {
        return Optional.empty();
      }
      groups.add(sql.get().sql());
      select.add(sql.get().sql());
      expected.add(DataTypes.createStructField("group_" + i, sql.get().type(), true));
    }
    AggregateFunc[] functions = functions(aggregation);
    for (int i = 0; i < functions.length; i++) {
      Optional<AggregateSql.Typed> sql = context.aggregates.aggregate(functions[i]);
      Optional<String> alias = context.dialect.identifier(ALIAS + i);
      if (!sql.isPresent() || !alias.isPresent()) {
        return Optional.empty();
      }
      select.add(sql.get().sql() + " AS " + alias.get());
      expected.add(DataTypes.createStructField(ALIAS + i, sql.get().type(), true));
    }
    return Optional.of(
        new Composed(
            query.select(select).groupBy(groups),
            DataTypes.createStructType(expected.toArray(new StructField[0]))));
  }

  private static Object accessor(Object aggregation, String name) {
    try {
      return aggregation.getClass().getMethod(name).invoke(aggregation);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Spark's Aggregation has no " + name + "(): " + e, e);
    }
  }
}
