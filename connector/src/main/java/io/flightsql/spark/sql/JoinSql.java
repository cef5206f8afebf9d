package io.flightsql.spark.sql;

import io.flightsql.spark.dialect.Dialect;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The query that joins two reads of one server on the server. Each side is the side's own query
 * (its filters, its sample) selecting the columns the join needs, each renamed to its name in the
 * join's result; the names of both sides together are distinct, so the join condition and the
 * select list name them without qualifiers, and two columns of the same name on both sides survive
 * under their own names:
 *
 * <pre>
 * SELECT "l_orderkey", "o_orderkey" FROM (SELECT "l_orderkey" AS "l_orderkey" FROM lineitem
 *   WHERE ...) AS "flightsql_left" INNER JOIN (SELECT ...) AS "flightsql_right"
 *   ON ("l_orderkey" = "o_orderkey")
 * </pre>
 *
 * A right outer join is written as the left outer join of the sides swapped, which every dialect
 * with outer joins has (SQLite had no RIGHT JOIN before 3.39); the select list keeps the left
 * side's columns first.
 */
public final class JoinSql {
  static final String LEFT_ALIAS = "flightsql_left";
  static final String RIGHT_ALIAS = "flightsql_right";

  /** The joins that can be pushed: those of Spark 4.1's join pushdown. */
  public enum Kind {
    INNER("INNER JOIN"),
    LEFT("LEFT OUTER JOIN"),
    RIGHT("RIGHT OUTER JOIN");

    private final String sql;

    Kind(String sql) {
      this.sql = sql;
    }

    /** The SQL keywords, also for EXPLAIN. */
    public String sql() {
      return sql;
    }
  }

  /** One side of a join: its query, and the columns it gives the join. */
  public static final class Side {
    private final PushedQuery query;
    private final List<String> columns;
    private final List<String> names;

    /**
     * @param query the side's query as pushed so far (filters, sample)
     * @param columns each column's SQL over the side's relation
     * @param names each column's name in the join's result, in the same order
     */
    public Side(PushedQuery query, List<String> columns, List<String> names) {
      if (columns.size() != names.size() || columns.isEmpty()) {
        throw new IllegalArgumentException("A side needs one name per column, and a column");
      }
      this.query = query;
      this.columns = Collections.unmodifiableList(new ArrayList<>(columns));
      this.names = Collections.unmodifiableList(new ArrayList<>(names));
    }

    /** The side's query, selecting its columns under their names in the join. */
    private String sql(Dialect dialect) {
      List<String> items = new ArrayList<>();
      for (int i = 0; i < columns.size(); i++) {
        items.add(columns.get(i) + " AS " + dialect.quoted(names.get(i)));
      }
      return query.select(items).sql();
    }
  }

  private JoinSql() {}

  /**
   * The SQL of {@code left} joined with {@code right} by {@code kind} on {@code condition}, a
   * condition over the names of both sides (already written SQL). Its columns are the left side's,
   * then the right side's, under their names in the join.
   */
  public static String write(Dialect dialect, Kind kind, Side left, Side right, String condition) {
    List<String> select = new ArrayList<>();
    for (String name : left.names) {
      select.add(dialect.quoted(name));
    }
    for (String name : right.names) {
      select.add(dialect.quoted(name));
    }
    String leftRelation = dialect.subquery(left.sql(dialect), LEFT_ALIAS);
    String rightRelation = dialect.subquery(right.sql(dialect), RIGHT_ALIAS);
    String from =
        kind == Kind.RIGHT
            ? rightRelation + " " + Kind.LEFT.sql + " " + leftRelation
            : leftRelation + " " + kind.sql + " " + rightRelation;
    return "SELECT " + String.join(", ", select) + " FROM " + from + " ON " + condition;
  }
}
