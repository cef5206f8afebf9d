package io.flightsql.spark.it.fuzz;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One read of a generated table, written as Spark SQL over a temporary view of it, so that the same
 * text runs over the connector's read with pushdown, without, and over Spark's own copy of the
 * rows. It also says how the three answers compare: in order only where the read orders every
 * column it returns (ties broken), by count where a LIMIT or OFFSET has no order, as a subset of
 * the whole where the read samples.
 *
 * @param source how the view reads the table: {@code dbtable}, a {@code query}, or a user schema
 *     whose columns are in the order {@code schemaOrder} gives (indexes into the table's columns)
 */
record FuzzRead(
    Shape shape,
    Source source,
    List<Integer> schemaOrder,
    List<String> select,
    Predicate where,
    Predicate rightWhere,
    String groupBy,
    List<Aggregate> aggregates,
    List<Order> order,
    Integer limit,
    Integer offset,
    String joinKey,
    String joinType,
    int samplePercent) {

  enum Shape {
    ROWS,
    AGGREGATE,
    JOIN,
    SAMPLE
  }

  enum Source {
    TABLE,
    QUERY,
    USER_SCHEMA
  }

  /** How the three answers compare. */
  enum Comparison {
    ORDERED,
    MULTISET,
    COUNT,
    SUBSET
  }

  /** {@code function(column)}; COUNT(*) has a null column. */
  record Aggregate(String function, String column) {
    String sql() {
      return function + "(" + (column == null ? "*" : column) + ")";
    }
  }

  record Order(String column, boolean descending, boolean nullsFirst) {
    String sql() {
      return column
          + (descending ? " DESC" : " ASC")
          + (nullsFirst ? " NULLS FIRST" : " NULLS LAST");
    }
  }

  FuzzRead {
    schemaOrder = List.copyOf(schemaOrder);
    select = List.copyOf(select);
    aggregates = List.copyOf(aggregates);
    order = List.copyOf(order);
  }

  /** The Spark SQL text over the view {@code view}. */
  String sql(String view) {
    StringBuilder sql = new StringBuilder("SELECT ");
    switch (shape) {
      case AGGREGATE:
        List<String> items = new ArrayList<>();
        if (groupBy != null) {
          items.add(groupBy);
        }
        aggregates.forEach(a -> items.add(a.sql()));
        sql.append(String.join(", ", items)).append(" FROM ").append(view);
        appendWhere(sql, where == null ? null : where.sql(""));
        if (groupBy != null) {
          sql.append(" GROUP BY ").append(groupBy);
        }
        return sql.toString();
      case JOIN:
        sql.append(String.join(", ", select))
            .append(" FROM ")
            .append(view)
            .append(" l ")
            .append(joinType)
            .append(' ')
            .append(view)
            .append(" r ON l.")
            .append(joinKey)
            .append(" = r.")
            .append(joinKey);
        List<String> conditions = new ArrayList<>();
        if (where != null) {
          conditions.add(where.sql("l."));
        }
        if (rightWhere != null) {
          conditions.add(rightWhere.sql("r."));
        }
        appendWhere(sql, conditions.isEmpty() ? null : String.join(" AND ", conditions));
        return sql.toString();
      default:
        sql.append(String.join(", ", select)).append(" FROM ").append(view);
        if (shape == Shape.SAMPLE) {
          sql.append(" TABLESAMPLE (").append(samplePercent).append(" PERCENT)");
        }
        appendWhere(sql, where == null ? null : where.sql(""));
        if (!order.isEmpty()) {
          List<String> keys = new ArrayList<>();
          order.forEach(o -> keys.add(o.sql()));
          sql.append(" ORDER BY ").append(String.join(", ", keys));
        }
        if (limit != null) {
          sql.append(" LIMIT ").append(limit);
        }
        if (offset != null) {
          sql.append(" OFFSET ").append(offset);
        }
        return sql.toString();
    }
  }

  private static void appendWhere(StringBuilder sql, String condition) {
    if (condition != null) {
      sql.append(" WHERE ").append(condition);
    }
  }

  Comparison comparison() {
    if (shape == Shape.SAMPLE) {
      return Comparison.SUBSET;
    }
    if (shape == Shape.ROWS && !order.isEmpty()) {
      return Comparison.ORDERED;
    }
    if (shape == Shape.ROWS && (limit != null || offset != null)) {
      return Comparison.COUNT;
    }
    return Comparison.MULTISET;
  }

  /** This read without its sample, limit and offset: the rows its answer is part of. */
  FuzzRead unbounded() {
    return new FuzzRead(
        shape == Shape.SAMPLE ? Shape.ROWS : shape,
        source,
        schemaOrder,
        select,
        where,
        rightWhere,
        groupBy,
        aggregates,
        List.of(),
        null,
        null,
        joinKey,
        joinType,
        0);
  }

  /**
   * The significant digits to which floating results compare, 0 for exactly: only sums and means of
   * floating columns, which Spark itself adds in no fixed order.
   */
  int digits(FuzzTable table) {
    int digits = 0;
    for (Aggregate aggregate : aggregates) {
      if ((aggregate.function().equals("SUM") || aggregate.function().equals("AVG"))
          && aggregate.column() != null) {
        Family family = table.column(aggregate.column()).family();
        if (family == Family.REAL) {
          return 6;
        }
        if (family == Family.DOUBLE) {
          digits = 12;
        }
      }
    }
    return digits;
  }

  /** The table's columns this read uses. */
  Set<String> columns() {
    Set<String> columns = new LinkedHashSet<>();
    for (String item : select) {
      columns.add(item.substring(item.indexOf('.') + 1));
    }
    if (where != null) {
      where.columns(columns);
    }
    if (rightWhere != null) {
      rightWhere.columns(columns);
    }
    if (groupBy != null) {
      columns.add(groupBy);
    }
    aggregates.stream().filter(a -> a.column() != null).forEach(a -> columns.add(a.column()));
    order.forEach(o -> columns.add(o.column()));
    if (joinKey != null) {
      columns.add(joinKey);
    }
    return columns;
  }

  /** Whether a user schema lists the columns in another order than the table. */
  boolean permuted() {
    for (int i = 0; i < schemaOrder.size(); i++) {
      if (schemaOrder.get(i) != i) {
        return true;
      }
    }
    return false;
  }

  FuzzRead withSource(Source newSource) {
    return new FuzzRead(
        shape,
        newSource,
        schemaOrder,
        select,
        where,
        rightWhere,
        groupBy,
        aggregates,
        order,
        limit,
        offset,
        joinKey,
        joinType,
        samplePercent);
  }

  FuzzRead withSchemaOrder(List<Integer> newOrder) {
    return new FuzzRead(
        shape,
        source,
        newOrder,
        select,
        where,
        rightWhere,
        groupBy,
        aggregates,
        order,
        limit,
        offset,
        joinKey,
        joinType,
        samplePercent);
  }
}
