package io.flightsql.spark.sql;

import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.types.ArrowToSpark;
import java.util.Optional;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Avg;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;

/**
 * Writes Spark's pushed aggregate functions as SQL of a {@link Dialect} that asks the server for
 * Spark's own result type, and says which type that is, so that the caller can check the server's
 * answer against it. Each aggregate is written only where the server's answer is Spark's whatever
 * the values (see docs/pushdown.md): Spark's result type, rule for overflow, and, for DISTINCT,
 * Spark's idea of which values are the same.
 *
 * <ul>
 *   <li>COUNT: {@code CAST(COUNT(..) AS BIGINT)}.
 *   <li>SUM over TINYINT, SMALLINT and INT: summed as BIGINT, which no sum of fewer than 2^32 such
 *       values overflows. Over BIGINT only under ANSI mode (where Spark fails on overflow) and
 *       where the dialect's sums fail on overflow too ({@link Dialect#sumOverflowsAsSpark}): a
 *       server that wraps, or Spark that wraps (ANSI off) while the server fails, would change the
 *       answer.
 *   <li>SUM over FLOAT and DOUBLE: as DOUBLE; over DOUBLE only where the server's sum past the
 *       type's range is an infinity, as Spark's is ({@link Dialect#sumOverflowsAsSpark}).
 *   <li>SUM over DECIMAL(p, s): as DECIMAL(p + 10, s), Spark's type, where p + 10 is at most 38, so
 *       that no sum of fewer than 10^10 values overflows; past 38 Spark's sum may overflow (NULL,
 *       or an error under ANSI) where the server's does not. Only for a complete pushdown ({@link
 *       #decimalSum}): in a partial one Spark casts each pushed sum back to DECIMAL(p, s).
 *   <li>AVG over integral types and FLOAT: {@code AVG(CAST(x AS DOUBLE))}, Spark's way; over DOUBLE
 *       as SUM. Never over DECIMAL: Spark rounds the quotient its own way.
 *   <li>MIN and MAX: in the column's type; over FLOAT and DOUBLE only where the dialect's extremes
 *       are Spark's, infinities included ({@link Dialect#minMaxOfFloatingAsSpark}).
 * </ul>
 *
 * DISTINCT is not written over FLOAT and DOUBLE columns, where Spark takes -0.0 and 0.0, and every
 * NaN, as one value; nor in an AVG over BIGINT, whose values the cast to DOUBLE may merge.
 */
public final class AggregateSql {
  /** An aggregate written in SQL, and the Spark type its result must have. */
  public static final class Typed {
    private final String sql;
    private final DataType type;

    Typed(String sql, DataType type) {
      this.sql = sql;
      this.type = type;
    }

    public String sql() {
      return sql;
    }

    /** Spark's result type of the aggregate, which the server's answer must map to. */
    public DataType type() {
      return type;
    }
  }

  private static final DataType LONG = DataTypes.LongType;

  private static final int MAX_PRECISION = 38;

  /** How many more digits Spark's SUM of a decimal has than its column. */
  private static final int SUM_DIGITS = 10;

  private final Dialect dialect;
  private final SourceColumns columns;
  private final boolean ansi;

  /**
   * @param ansi whether Spark runs under ANSI mode ({@code spark.sql.ansi.enabled}), where its SUM
   *     over BIGINT fails on overflow instead of wrapping
   */
  public AggregateSql(Dialect dialect, SourceColumns columns, boolean ansi) {
    this.dialect = dialect;
    this.columns = columns;
    this.ansi = ansi;
  }

  /** A column to group by, with its type. */
  public Optional<Typed> groupBy(Expression e) {
    return resolved(e).map(c -> new Typed(c.sql(), c.type()));
  }

  /** An aggregate function, or empty when the server's answer might not be Spark's. */
  public Optional<Typed> aggregate(AggregateFunc f) {
    if (f instanceof CountStar) {
      return cast("COUNT(*)", LONG);
    }
    if (f instanceof Count) {
      Count count = (Count) f;
      // COUNT(DISTINCT) compares values, so a collation unlike Spark's matters; COUNT does not.
      return (count.isDistinct() ? resolved(count.column()) : held(count.column()))
          .filter(c -> !count.isDistinct() || !floating(c.type()))
          .flatMap(c -> cast("COUNT(" + distinct(count.isDistinct()) + c.sql() + ")", LONG));
    }
    if (f instanceof Sum) {
      Sum sum = (Sum) f;
      return resolved(sum.column()).flatMap(c -> sum(c, sum.isDistinct()));
    }
    if (f instanceof Avg) {
      Avg avg = (Avg) f;
      return resolved(avg.column()).flatMap(c -> avg(c, avg.isDistinct()));
    }
    if (f instanceof Min) {
      return extremum(((Min) f).column()).map(c -> new Typed("MIN(" + c.sql() + ")", c.type()));
    }
    if (f instanceof Max) {
      return extremum(((Max) f).column()).map(c -> new Typed("MAX(" + c.sql() + ")", c.type()));
    }
    return Optional.empty();
  }

  /** Whether {@code f} is a SUM over a decimal column, which only a complete pushdown takes. */
  public boolean decimalSum(AggregateFunc f) {
    return f instanceof Sum
        && resolved(((Sum) f).column()).map(c -> c.type() instanceof DecimalType).orElse(false);
  }

  /** Whether the server computes this AVG as Spark does, so that Spark need not divide. */
  public boolean avgIsExact(Avg avg) {
    return resolved(avg.column()).flatMap(c -> avg(c, avg.isDistinct())).isPresent();
  }

  private Optional<Typed> sum(SourceColumns.Column column, boolean isDistinct) {
    DataType type = column.type();
    if (isDistinct && floating(type)) {
      return Optional.empty();
    }
    String prefix = "SUM(" + distinct(isDistinct);
    if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType) {
      return widened(column, LONG).flatMap(x -> cast(prefix + x + ")", LONG));
    }
    if (type instanceof LongType) {
      if (!ansi || !dialect.sumOverflowsAsSpark(LONG)) {
        return Optional.empty();
      }
      return widened(column, LONG).flatMap(x -> cast(prefix + x + ")", LONG));
    }
    if (type instanceof FloatType
        || (type instanceof DoubleType && dialect.sumOverflowsAsSpark(type))) {
      return widened(column, DataTypes.DoubleType)
          .flatMap(x -> cast(prefix + x + ")", DataTypes.DoubleType));
    }
    if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      if (decimal.precision() + SUM_DIGITS > MAX_PRECISION) {
        return Optional.empty();
      }
      DecimalType result =
          DataTypes.createDecimalType(decimal.precision() + SUM_DIGITS, decimal.scale());
      return cast(prefix + column.sql() + ")", result);
    }
    return Optional.empty();
  }

  private Optional<Typed> avg(SourceColumns.Column column, boolean isDistinct) {
    DataType type = column.type();
    if (isDistinct && (floating(type) || type instanceof LongType)) {
      return Optional.empty();
    }
    boolean widenable =
        type instanceof ByteType
            || type instanceof ShortType
            || type instanceof IntegerType
            || type instanceof LongType
            || type instanceof FloatType
            || (type instanceof DoubleType && dialect.sumOverflowsAsSpark(type));
    if (!widenable) {
      return Optional.empty();
    }
    // AVG of a DOUBLE is a DOUBLE in SQL: no cast around it.
    return widened(column, DataTypes.DoubleType)
        .map(x -> new Typed("AVG(" + distinct(isDistinct) + x + ")", DataTypes.DoubleType));
  }

  /** The column of a MIN or MAX, unless the dialect's extremes of floats are not Spark's. */
  private Optional<SourceColumns.Column> extremum(Expression e) {
    return resolved(e).filter(c -> !floating(c.type()) || dialect.minMaxOfFloatingAsSpark());
  }

  /** {@code CAST(<column> AS <type>)} in the dialect's words. */
  private Optional<String> widened(SourceColumns.Column column, DataType type) {
    return dialect.castType(type).map(name -> "CAST(" + column.sql() + " AS " + name + ")");
  }

  /** {@code CAST(<sql> AS <type>)}, typed {@code type}. */
  private Optional<Typed> cast(String sql, DataType type) {
    return dialect.castType(type).map(name -> new Typed("CAST(" + sql + " AS " + name + ")", type));
  }

  private static String distinct(boolean isDistinct) {
    return isDistinct ? "DISTINCT " : "";
  }

  private static boolean floating(DataType type) {
    return type instanceof FloatType || type instanceof DoubleType;
  }

  /**
   * A top-level column of a scalar type whose values the server holds as Spark reads them, for what
   * compares nothing (COUNT): a string column qualifies whatever the server's collation.
   */
  private Optional<SourceColumns.Column> held(Expression e) {
    if (!(e instanceof NamedReference)) {
      return Optional.empty();
    }
    return columns
        .resolve(((NamedReference) e).fieldNames())
        .filter(SourceColumns.Column::sameValues)
        .filter(col -> ArrowToSpark.isScalar(col.type()));
  }

  /** A comparable top-level column of a scalar type. */
  private Optional<SourceColumns.Column> resolved(Expression e) {
    if (!(e instanceof NamedReference)) {
      return Optional.empty();
    }
    return columns
        .resolve(((NamedReference) e).fieldNames())
        .filter(SourceColumns.Column::comparable)
        .filter(col -> ArrowToSpark.isScalar(col.type()));
  }
}
