package io.flightsql.spark.read;

import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;

/**
 * The parts of Spark's {@link Aggregation}. Spark 4's Aggregation is a Java record, which code
 * compiled for Java 11 (for Spark 3.5 clusters) cannot call directly; Spark 3.5's is a class with
 * the same accessors, so the calls go through reflection on whichever is loaded.
 */
final class Aggregations {
  private Aggregations() {}

  /** The aggregate functions of an aggregation. */
  static AggregateFunc[] functions(Aggregation aggregation) {
    return (AggregateFunc[]) accessor(aggregation, "aggregateExpressions");
  }

  /** The GROUP BY expressions of an aggregation. */
  static Expression[] groupBys(Aggregation aggregation) {
    return (Expression[]) accessor(aggregation, "groupByExpressions");
  }

  private static Object accessor(Object aggregation, String name) {
    try {
      return aggregation.getClass().getMethod(name).invoke(aggregation);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Spark's Aggregation has no " + name + "(): " + e, e);
    }
  }
}
