package io.flightsql.spark.sql;

import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.types.ArrowToSpark;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.NullOrdering;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.StringType;

/**
 * Writes Spark's pushed expressions (predicates, sort orders) as SQL of a {@link Dialect} over
 * {@link SourceColumns}. Each method answers empty unless the whole expression can be written so
 * that the server computes what Spark would: then Spark keeps that work.
 *
 * <p>Operands are top-level columns and literals only; a column the server would compare
 * differently (see {@link SourceColumns.Column#comparable()}) is never an operand.
 */
public final class ExpressionSql {
  private final Dialect dialect;
  private final SourceColumns columns;

  public ExpressionSql(Dialect dialect, SourceColumns columns) {
    this.dialect = dialect;
    this.columns = columns;
  }

  /** A predicate as a SQL condition. */
  public Optional<String> predicate(Predicate p) {
    Expression[] c = p.children();
    switch (p.name()) {
      case "ALWAYS_TRUE":
        return Optional.of("(1 = 1)");
      case "ALWAYS_FALSE":
        return Optional.of("(1 = 0)");
      case "AND":
      case "OR":
        {
          Optional<String> left = childPredicate(c[0]);
          Optional<String> right = childPredicate(c[1]);
          if (!left.isPresent() || !right.isPresent()) {
            return Optional.empty();
          }
          return Optional.of("(" + left.get() + " " + p.name() + " " + right.get() + ")");
        }
      case "NOT":
        return childPredicate(c[0]).map(inner -> "(NOT " + inner + ")");
      case "IS_NULL":
        return heldColumn(c[0]).map(col -> "(" + col + " IS NULL)");
      case "IS_NOT_NULL":
        return heldColumn(c[0]).map(col -> "(" + col + " IS NOT NULL)");
      case "=":
      case "<>":
      case "<":
      case "<=":
      case ">":
      case ">=":
        return comparison(p.name(), c[0], c[1]);
      case "<=>":
        {
          Optional<String> left = operand(c[0]);
          Optional<String> right = operand(c[1]);
          if (!left.isPresent() || !right.isPresent() || !hasColumn(c[0], c[1])) {
            return Optional.empty();
          }
          return Optional.of(dialect.nullSafeEqual(left.get(), right.get()));
        }
      case "IN":
        return in(c);
      case "STARTS_WITH":
      case "ENDS_WITH":
      case "CONTAINS":
        return stringMatch(p.name(), c);
      default:
        return Optional.empty();
    }
  }

  private Optional<String> childPredicate(Expression e) {
    return e instanceof Predicate ? predicate((Predicate) e) : Optional.empty();
  }

  private Optional<String> comparison(String op, Expression left, Expression right) {
    if (!hasColumn(left, right)) {
      return Optional.empty();
    }
    Optional<String> l = operand(left);
    Optional<String> r = operand(right);
    if (!l.isPresent() || !r.isPresent()) {
      return Optional.empty();
    }
    return Optional.of("(" + l.get() + " " + op + " " + r.get() + ")");
  }

  private Optional<String> in(Expression[] c) {
    Optional<String> col = column(c[0]);
    if (!col.isPresent() || c.length < 2) {
      return Optional.empty();
    }
    List<String> values = new ArrayList<>();
    for (int i = 1; i < c.length; i++) {
      if (!(c[i] instanceof Literal)) {
        return Optional.empty();
      }
      Optional<String> v = literal((Literal<?>) c[i]);
      if (!v.isPresent()) {
        return Optional.empty();
      }
      values.add(v.get());
    }
    return Optional.of("(" + col.get() + " IN (" + String.join(", ", values) + "))");
  }

  private Optional<String> stringMatch(String function, Expression[] c) {
    Optional<SourceColumns.Column> col = resolved(c[0]);
    if (!col.isPresent()
        || !(col.get().type() instanceof StringType)
        || !(c[1] instanceof Literal)
        || ((Literal<?>) c[1]).value() == null) {
      return Optional.empty();
    }
    return dialect.stringMatch(col.get().sql(), function, ((Literal<?>) c[1]).value().toString());
  }

  /** Whether one side at least is a column: a comparison of two literals is Spark's to fold. */
  private static boolean hasColumn(Expression left, Expression right) {
    return left instanceof NamedReference || right instanceof NamedReference;
  }

  /** A column or a non-null literal of a type both sides of a comparison can have. */
  private Optional<String> operand(Expression e) {
    if (e instanceof NamedReference) {
      return column(e);
    }
    if (e instanceof Literal) {
      Literal<?> lit = (Literal<?>) e;
      if (lit.value() == null || !ArrowToSpark.isScalar(lit.dataType())) {
        return Optional.empty();
      }
      return literal(lit);
    }
    return Optional.empty();
  }

  private Optional<String> literal(Literal<?> lit) {
    if (lit.value() != null && !ArrowToSpark.isScalar(lit.dataType())) {
      return Optional.empty();
    }
    return dialect.literal(lit.value(), lit.dataType());
  }

  /** The quoted name of a comparable top-level column of a type the dialect compares. */
  private Optional<String> column(Expression e) {
    return resolved(e).map(SourceColumns.Column::sql);
  }

  private Optional<SourceColumns.Column> resolved(Expression e) {
    if (!(e instanceof NamedReference)) {
      return Optional.empty();
    }
    return columns
        .resolve(((NamedReference) e).fieldNames())
        .filter(SourceColumns.Column::comparable)
        .filter(col -> ArrowToSpark.isScalar(col.type()));
  }

  /**
   * The quoted name of a top-level scalar column whose values the server holds as Spark reads them,
   * for what needs no comparison (IS NULL): a string column qualifies whatever the server's
   * collation.
   */
  private Optional<String> heldColumn(Expression e) {
    if (!(e instanceof NamedReference)) {
      return Optional.empty();
    }
    return columns
        .resolve(((NamedReference) e).fieldNames())
        .filter(SourceColumns.Column::sameValues)
        .filter(col -> ArrowToSpark.isScalar(col.type()))
        .map(SourceColumns.Column::sql);
  }

  /** An ORDER BY item over a column. */
  public Optional<String> orderItem(SortOrder order) {
    Optional<String> col = column(order.expression());
    if (!col.isPresent()) {
      return Optional.empty();
    }
    return dialect.orderItem(
        col.get(),
        order.direction() == SortDirection.ASCENDING,
        order.nullOrdering() == NullOrdering.NULLS_FIRST);
  }
}
