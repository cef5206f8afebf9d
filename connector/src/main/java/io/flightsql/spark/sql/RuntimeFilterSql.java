package io.flightsql.spark.sql;

import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.types.ArrowToSpark;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Writes the filters Spark sends a scan at run time (dynamic pruning: {@code column IN (the keys
 * the other side of a join found)}) as conditions of the read's dialect. Such a filter only saves
 * reading rows the join would drop, so its condition may keep more rows than the filter, never
 * fewer: an IN list when it has at most {@code maxValues} values and {@value #MAX_CHARS} characters
 * of literals, else the range from the smallest value to the largest, else nothing. NULLs match
 * nothing in a join and are left out; a filter with no value left matches no row.
 *
 * <p>Only columns whose values the server holds as Spark reads them are filtered (see {@link
 * SourceColumns.Column#sameValues()}), and only with literals the dialect writes exactly (see
 * {@link Dialect#literal}), quotes and all. A range needs more: that the server orders the column's
 * values as Spark does ({@link SourceColumns.Column#comparable()}); a string column of a server
 * whose collation is not known to be Spark's gets an IN list or nothing, since a range between two
 * strings of another order could leave out rows the join keeps.
 */
public final class RuntimeFilterSql {
  /** The most characters of literals in one IN list. */
  public static final int MAX_CHARS = 100_000;

  private final Dialect dialect;
  private final SourceColumns columns;
  private final int maxValues;

  public RuntimeFilterSql(Dialect dialect, SourceColumns columns, int maxValues) {
    this.dialect = dialect;
    this.columns = columns;
    this.maxValues = maxValues;
  }

  /**
   * Whether a runtime filter on the column can be written: the server holds its values as Spark
   * does, it is a scalar, and the dialect writes literals of its type.
   */
  public boolean filterable(String name) {
    Optional<SourceColumns.Column> column = columns.resolve(new String[] {name});
    return column.isPresent()
        && column.get().sameValues()
        && ArrowToSpark.isScalar(column.get().type())
        && sample(column.get().type())
            .flatMap(v -> dialect.literal(v, column.get().type()))
            .isPresent();
  }

  /** The condition of a runtime filter, or empty when it cannot be written. */
  public Optional<String> condition(Predicate filter) {
    Expression[] children = filter.children();
    if (!"IN".equals(filter.name())
        || children.length == 0
        || !(children[0] instanceof NamedReference)) {
      return Optional.empty();
    }
    Optional<SourceColumns.Column> resolved =
        columns.resolve(((NamedReference) children[0]).fieldNames());
    if (!resolved.isPresent() || !filterable(resolved.get().name())) {
      return Optional.empty();
    }
    SourceColumns.Column column = resolved.get();
    List<Object> values = new ArrayList<>();
    for (int i = 1; i < children.length; i++) {
      if (!(children[i] instanceof Literal)) {
        return Optional.empty();
      }
      Object value = ((Literal<?>) children[i]).value();
      if (value != null) {
        values.add(value);
      }
    }
    if (values.isEmpty()) {
      return Optional.of("(1 = 0)");
    }
    if (values.size() <= maxValues) {
      Optional<String> in = inList(column, values);
      if (in.isPresent()) {
        return in;
      }
    }
    return column.comparable() ? range(column, values) : Optional.empty();
  }

  private Optional<String> inList(SourceColumns.Column column, List<Object> values) {
    List<String> literals = new ArrayList<>();
    int chars = 0;
    for (Object value : values) {
      Optional<String> literal = dialect.literal(value, column.type());
      if (!literal.isPresent()) {
        return Optional.empty();
      }
      chars += literal.get().length() + 2;
      if (chars > MAX_CHARS) {
        return Optional.empty();
      }
      literals.add(literal.get());
    }
    return Optional.of("(" + column.sql() + " IN (" + String.join(", ", literals) + "))");
  }

  private Optional<String> range(SourceColumns.Column column, List<Object> values) {
    Object min = values.get(0);
    Object max = min;
    for (Object value : values) {
      Optional<Integer> belowMin = compare(value, min);
      Optional<Integer> belowMax = compare(value, max);
      if (!belowMin.isPresent() || !belowMax.isPresent()) {
        return Optional.empty();
      }
      if (belowMin.get() < 0) {
        min = value;
      }
      if (belowMax.get() > 0) {
        max = value;
      }
    }
    Optional<String> low = dialect.literal(min, column.type());
    Optional<String> high = dialect.literal(max, column.type());
    if (!low.isPresent() || !high.isPresent()) {
      return Optional.empty();
    }
    String col = column.sql();
    return Optional.of("(" + col + " >= " + low.get() + " AND " + col + " <= " + high.get() + ")");
  }

  /**
   * Two values of one type in Spark's internal form, compared as Spark orders them: numbers (dates
   * and timestamps are numbers there), decimals, booleans, strings by their UTF-8 bytes, binaries
   * byte by unsigned byte. Empty for values of other forms.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Optional<Integer> compare(Object a, Object b) {
    if (a instanceof byte[] && b instanceof byte[]) {
      byte[] x = (byte[]) a;
      byte[] y = (byte[]) b;
      for (int i = 0; i < Math.min(x.length, y.length); i++) {
        int c = Integer.compare(x[i] & 0xff, y[i] & 0xff);
        if (c != 0) {
          return Optional.of(c);
        }
      }
      return Optional.of(Integer.compare(x.length, y.length));
    }
    if (a instanceof Comparable && b != null && a.getClass() == b.getClass()) {
      return Optional.of(((Comparable) a).compareTo(b));
    }
    return Optional.empty();
  }

  /** A value of the type in Spark's internal form, to ask whether the dialect writes any. */
  private static Optional<Object> sample(DataType type) {
    if (type instanceof BooleanType) {
      return Optional.of(Boolean.TRUE);
    }
    if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType) {
      return Optional.of(1);
    }
    if (type instanceof LongType) {
      return Optional.of(1L);
    }
    if (type instanceof FloatType) {
      return Optional.of(1.5f);
    }
    if (type instanceof DoubleType) {
      return Optional.of(1.5);
    }
    if (type instanceof DecimalType) {
      return Optional.of(Decimal.apply(1));
    }
    if (type instanceof StringType) {
      return Optional.of(UTF8String.fromString("a"));
    }
    if (type instanceof BinaryType) {
      return Optional.of(new byte[] {1});
    }
    if (type instanceof DateType) {
      return Optional.of(19_000);
    }
    if (type instanceof TimestampType || type instanceof TimestampNTZType) {
      return Optional.of(1_700_000_000_000_000L);
    }
    return Optional.empty();
  }
}
