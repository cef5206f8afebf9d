package io.flightsql.spark.read;

import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.config.ReadPartitioning;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.StructType;

/**
 * What EXPLAIN and the Spark UI show of a scan: the server, the dialect, what was pushed, in the
 * style of Spark's JDBC source, the schema read and the SQL sent. Driver only.
 */
final class ScanDescription {
  private final StringBuilder out;

  /**
   * @param dialect the dialect's name, or null when nothing could be pushed
   */
  ScanDescription(FlightUri uri, String dialect, List<Predicate> pushedFilters) {
    out = new StringBuilder("FlightSQL [uri=").append(uri);
    if (dialect != null) {
      out.append(", Dialect: ").append(dialect);
    }
    out.append(", PushedFilters: ").append(list(pushedFilters));
  }

  /** A join pushed into the read, as {@code <left> INNER JOIN <right> ON <condition>}; or none. */
  ScanDescription join(String join) {
    if (join != null) {
      out.append(", PushedJoin: [").append(join).append(']');
    }
    return this;
  }

  /** The sampling clause pushed into the read, in the dialect's words; or none. */
  ScanDescription sample(String clause) {
    if (clause != null) {
      out.append(", PushedSample: ").append(clause);
    }
    return this;
  }

  ScanDescription aggregation(Aggregation aggregation, boolean complete) {
    out.append(", PushedAggregates: ")
        .append(list(Arrays.asList(Aggregations.functions(aggregation))));
    out.append(", PushedGroupBy: ").append(list(Arrays.asList(Aggregations.groupBys(aggregation))));
    out.append(complete ? " (complete)" : " (partial)");
    return this;
  }

  /** A top-N when {@code orders} is not null, else a limit when {@code limit} is not negative. */
  ScanDescription limit(SortOrder[] orders, int limit) {
    if (orders != null) {
      out.append(", PushedTopN: ORDER BY ").append(list(Arrays.asList(orders)));
      out.append(" LIMIT ").append(limit);
    } else if (limit >= 0) {
      out.append(", PushedLimit: LIMIT ").append(limit);
    }
    return this;
  }

  ScanDescription offset(int offset) {
    if (offset > 0) {
      out.append(", PushedOffset: OFFSET ").append(offset);
    }
    return this;
  }

  /** A read split by the client: each partition's query is the SQL with its own condition. */
  ScanDescription partitioning(ReadPartitioning partitioning) {
    out.append(", Partitioning: ").append(partitioning);
    return this;
  }

  String text(StructType readSchema, String sql) {
    return out + ", ReadSchema: " + readSchema.simpleString() + ", SQL: " + sql + "]";
  }

  private static String list(List<?> items) {
    List<String> texts = new ArrayList<>();
    for (Object item : items) {
      texts.add(String.valueOf(item));
    }
    return "[" + String.join(", ", texts) + "]";
  }
}
