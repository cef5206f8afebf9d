package io.flightsql.spark.read;

import java.util.Locale;

/** What the connector needs to know of a query's text without parsing its SQL. */
final class SqlText {
  private SqlText() {}

  /**
   * Whether the query's last clause at the top level (outside parentheses, string literals, quoted
   * names and comments) is an ORDER BY, possibly followed by LIMIT, OFFSET or FETCH.
   */
  static boolean endsWithOrderBy(String sql) {
    String top = topLevel(sql).toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
    int orderBy = top.lastIndexOf(" ORDER BY ");
    if (orderBy < 0) {
      return false;
    }
    String after = top.substring(orderBy);
    // A later clause other than the row limits would end the ORDER BY's reach (a UNION, say).
    for (String clause : new String[] {" UNION ", " EXCEPT ", " INTERSECT ", " FROM ", " WHERE "}) {
      if (after.contains(clause)) {
        return false;
      }
    }
    return true;
  }

  /** The text at parenthesis depth 0, with literals, quoted names and comments blanked. */
  private static String topLevel(String sql) {
    StringBuilder out = new StringBuilder(sql.length() + 2).append(' ');
    int depth = 0;
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int end = sql.indexOf(c, i + 1);
        while (end >= 0 && end + 1 < sql.length() && sql.charAt(end + 1) == c) {
          end = sql.indexOf(c, end + 2);
        }
        i = end < 0 ? sql.length() : end;
        out.append(' ');
      } else if (c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-') {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? sql.length() : end;
        out.append(' ');
      } else if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth = Math.max(0, depth - 1);
      } else if (depth == 0) {
        out.append(c);
      }
    }
    return out.append(' ').toString();
  }
}
