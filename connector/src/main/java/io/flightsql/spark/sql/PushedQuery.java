package io.flightsql.spark.sql;

import io.flightsql.spark.dialect.Dialect;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The query a read sends to the server: the user's query or table, with the pushed projection,
 * filters, aggregation, order and row limits composed around it. Immutable and Serializable, so
 * that executors can run it again.
 *
 * <p>Over a table the composed query selects from it directly ({@code SELECT ... FROM <dbtable>
 * WHERE ...}); over a query it selects from the query as a subquery ({@code SELECT ... FROM
 * (<query>) AS "flightsql_source" WHERE ...}). With nothing pushed and every column selected in
 * order, the server gets the user's SQL unchanged.
 */
public final class PushedQuery implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The alias of the user's query when it is a subquery. */
  static final String SOURCE_ALIAS = "flightsql_source";

  private final Dialect dialect;
  private final String original;
  private final String relation;

  /** Whether {@link #original} is SQL the connector wrote (a pushed join), not the user's. */
  private final boolean written;

  /** Whether {@link #relation} is a table named by option {@code dbtable}. */
  private final boolean table;

  /** The sampling clause after the relation, in the dialect's words; null for none. */
  private final String sample;

  private final List<String> select;
  private final List<String> where;
  private final List<String> groupBy;
  private final List<String> orderBy;
  private final int limit;
  private final int offset;

  private PushedQuery(
      Dialect dialect,
      String original,
      String relation,
      boolean written,
      boolean table,
      String sample,
      List<String> select,
      List<String> where,
      List<String> groupBy,
      List<String> orderBy,
      int limit,
      int offset) {
    this.dialect = dialect;
    this.original = original;
    this.relation = relation;
    this.written = written;
    this.table = table;
    this.sample = sample;
    this.select = Collections.unmodifiableList(new ArrayList<>(select));
    this.where = Collections.unmodifiableList(new ArrayList<>(where));
    this.groupBy = Collections.unmodifiableList(new ArrayList<>(groupBy));
    this.orderBy = Collections.unmodifiableList(new ArrayList<>(orderBy));
    this.limit = limit;
    this.offset = offset;
  }

  /**
   * A read of the user's {@code query} (when {@code table} is null) or of the table {@code table}
   * (as written in option {@code dbtable}; {@code query} is then {@code SELECT * FROM <table>}).
   * Nothing is pushed yet.
   */
  public static PushedQuery over(Dialect dialect, String query, String table) {
    Objects.requireNonNull(query);
    String relation = table != null ? table : dialect.subquery(query, SOURCE_ALIAS);
    return new PushedQuery(
        dialect,
        query,
        relation,
        false,
        table != null,
        null,
        Collections.emptyList(),
        Collections.emptyList(),
        Collections.emptyList(),
        Collections.emptyList(),
        -1,
        0);
  }

  /**
   * A read of {@code sql}, a query the connector wrote (two reads joined on the server): it is
   * composed, so that it is sent as it is and its schema checked, and is a subquery of what is
   * pushed after it.
   */
  public static PushedQuery overWritten(Dialect dialect, String sql) {
    Objects.requireNonNull(sql);
    return new PushedQuery(
        dialect,
        sql,
        dialect.subquery(sql, SOURCE_ALIAS),
        true,
        false,
        null,
        Collections.emptyList(),
        Collections.emptyList(),
        Collections.emptyList(),
        Collections.emptyList(),
        -1,
        0);
  }

  /**
   * With the table sampled by {@code clause} (the dialect's sampling clause, placed after the
   * table's name); only over a table ({@link #overTable()}).
   */
  public PushedQuery sample(String clause) {
    if (!table) {
      throw new IllegalStateException("Only a table is sampled on the server");
    }
    return new PushedQuery(
        dialect, original, relation, written, table, clause, select, where, groupBy, orderBy, limit,
        offset);
  }

  /** Whether the relation read is a table (option {@code dbtable}), not a query. */
  public boolean overTable() {
    return table;
  }

  /**
   * Whether a condition ANDed to the WHERE clause only removes rows of the result: nothing is
   * grouped, ordered, limited or skipped after it. (The select list of an aggregate without GROUP
   * BY is the caller's to know.)
   */
  public boolean rowsOnly() {
    return groupBy.isEmpty() && orderBy.isEmpty() && limit < 0 && offset == 0;
  }

  /** With this select list (already written SQL); empty means every column ({@code *}). */
  public PushedQuery select(List<String> items) {
    return new PushedQuery(
        dialect, original, relation, written, table, sample, items, where, groupBy, orderBy, limit,
        offset);
  }

  /** With these conditions ANDed to the WHERE clause (already written SQL). */
  public PushedQuery where(List<String> conditions) {
    List<String> all = new ArrayList<>(where);
    all.addAll(conditions);
    return new PushedQuery(
        dialect, original, relation, written, table, sample, select, all, groupBy, orderBy, limit,
        offset);
  }

  public PushedQuery groupBy(List<String> columns) {
    return new PushedQuery(
        dialect, original, relation, written, table, sample, select, where, columns, orderBy, limit,
        offset);
  }

  public PushedQuery orderBy(List<String> items) {
    return new PushedQuery(
        dialect, original, relation, written, table, sample, select, where, groupBy, items, limit,
        offset);
  }

  /** With at most {@code rows} rows ({@code -1}: no limit). */
  public PushedQuery limit(int rows) {
    return new PushedQuery(
        dialect, original, relation, written, table, sample, select, where, groupBy, orderBy, rows,
        offset);
  }

  /** Skipping the first {@code rows} rows, before the limit. */
  public PushedQuery offset(int rows) {
    return new PushedQuery(
        dialect, original, relation, written, table, sample, select, where, groupBy, orderBy, limit,
        rows);
  }

  public int limit() {
    return limit;
  }

  public int offset() {
    return offset;
  }

  public Dialect dialect() {
    return dialect;
  }

  /** Whether the SQL sent is the connector's: anything is composed around the user's SQL. */
  public boolean composed() {
    return written || clauses();
  }

  /** Whether any clause is composed around the source relation. */
  private boolean clauses() {
    return sample != null
        || !select.isEmpty()
        || !where.isEmpty()
        || !groupBy.isEmpty()
        || !orderBy.isEmpty()
        || limit >= 0
        || offset > 0;
  }

  /** The SQL to send. */
  public String sql() {
    return sql(null);
  }

  /**
   * The SQL to send, with {@code extraCondition} (already written SQL, or null) ANDed to the
   * filters over the source relation: inside any GROUP BY, ORDER BY and LIMIT, so that it selects
   * rows of the source (as the condition of one of several client-side partitions would).
   */
  public String sql(String extraCondition) {
    if (!clauses() && extraCondition == null) {
      return original;
    }
    StringBuilder sql = new StringBuilder("SELECT ");
    sql.append(select.isEmpty() ? "*" : String.join(", ", select));
    sql.append(" FROM ").append(relation);
    if (sample != null) {
      sql.append(' ').append(sample);
    }
    List<String> conditions = new ArrayList<>(where);
    if (extraCondition != null) {
      conditions.add("(" + extraCondition + ")");
    }
    if (!conditions.isEmpty()) {
      sql.append(" WHERE ").append(String.join(" AND ", conditions));
    }
    if (!groupBy.isEmpty()) {
      sql.append(" GROUP BY ").append(String.join(", ", groupBy));
    }
    if (!orderBy.isEmpty()) {
      sql.append(" ORDER BY ").append(String.join(", ", orderBy));
    }
    if (limit >= 0 || offset > 0) {
      String clause =
          dialect
              .limitOffset(limit, offset)
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "limit " + limit + " offset " + offset + " was pushed unwritable"));
      sql.append(' ').append(clause);
    }
    return sql.toString();
  }

  @Override
  public String toString() {
    return sql();
  }
}
