package io.flightsql.spark.sql;

/**
 * The query of one client-side partition: the scan's query with the partition's condition. The one
 * place where a partition's condition meets the query, so that a query composer that folds it into
 * the query's own WHERE clause can replace the subquery wrapping here.
 */
public final class PartitionQuery {
  /** The derived table's name; any name works, the outer query refers to no table by name. */
  static final String ALIAS = "flightsql_partition";

  private PartitionQuery() {}

  /**
   * {@code SELECT * FROM (<base>) AS flightsql_partition WHERE (<condition>)}, or {@code base}
   * itself when the partition has no condition (the only partition of a read).
   */
  public static String sql(String base, String condition) {
    if (condition == null) {
      return base;
    }
    return "SELECT * FROM (" + base + ") AS " + ALIAS + " WHERE (" + condition + ")";
  }
}
