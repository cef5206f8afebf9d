package io.flightsql.spark.stream;

import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.config.StreamOptions;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.sql.ExpressionSql;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.sql.SourceColumns;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL a stream sends about its offset column, in the read's dialect and over the read's source:
 * the conditions of a range ({@code > start AND <= end}), written as pushed filters are so that the
 * server compares exactly as Spark would (literals of the column's type, never text pasted into
 * SQL), and the queries that find marks on the driver: the newest value, the oldest, and the
 * (n+1)-th smallest above a mark, each one row of one column (but where a server refuses OFFSET).
 * Driver only.
 */
final class OffsetQueries {
  private static final Logger LOG = LoggerFactory.getLogger(OffsetQueries.class);

  private static final String NEWEST = "the newest value of the offset column";
  private static final String OLDEST = "the oldest value of the offset column";
  private static final String FOLLOWING =
      "the end of a micro-batch of option '" + StreamOptions.MAX_ROWS_PER_TRIGGER.name() + "'";

  private final SourceReads reads;
  private final OffsetColumn column;
  private final NamedReference reference;
  private final StructType oneColumn;
  private ExpressionSql expressions;
  private String columnSql;

  /** Whether the server refused the OFFSET of {@link #following}'s query once. */
  private boolean offsetRefused;

  OffsetQueries(SourceReads reads, OffsetColumn column) {
    this.reads = reads;
    this.column = column;
    this.reference = Expressions.column(column.name());
    StructField field = reads.schema().fields()[reads.schema().fieldIndex(column.name())];
    this.oneColumn = new StructType(new StructField[] {field});
  }

  /** Finds the dialect and columns, once: the first call asks the server. */
  private void resolve() {
    if (expressions != null) {
      return;
    }
    SourceColumns columns = reads.columns();
    Optional<SourceColumns.Column> found = columns.resolve(new String[] {column.name()});
    if (!found.isPresent() || !found.get().comparable()) {
      throw new IllegalArgumentException(
          "Option 'offsetColumn' names '"
              + column.name()
              + "', whose values "
              + reads.config().uri()
              + " does not hold exactly as Spark reads them ("
              + column.typeName()
              + " converted from the server's type), so a range of them could select other rows"
              + " on the server than in Spark. Choose a column of an integer, decimal, date or"
              + " timestamp type that Spark reads unchanged; see docs/streaming.md.");
    }
    expressions = new ExpressionSql(reads.source().dialect(), columns);
    columnSql = found.get().sql();
  }

  /**
   * The conditions of the rows above {@code after} (none: every row with a value) and at most
   * {@code upTo} (none: no upper bound). NULLs are excluded by name: a server may find NULL below
   * every value rather than unknown (Deephaven does).
   */
  List<String> range(Object after, Object upTo) {
    resolve();
    List<String> conditions = new ArrayList<>();
    conditions.add(
        write(new Predicate("IS_NOT_NULL", new Expression[] {reference}), "IS NOT NULL"));
    if (after != null) {
      conditions.add(comparison(">", after));
    }
    if (upTo != null) {
      conditions.add(comparison("<=", upTo));
    }
    return conditions;
  }

  private String comparison(String operator, Object value) {
    return write(
        new Predicate(
            operator, new Expression[] {reference, new LiteralValue<>(value, column.type())}),
        operator + " " + column.text(value));
  }

  private String write(Predicate predicate, String what) {
    return expressions
        .predicate(predicate)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "Dialect '"
                        + reads.source().dialect().name()
                        + "' cannot write the condition "
                        + column.name()
                        + " "
                        + what
                        + " so that "
                        + reads.config().uri()
                        + " compares as Spark does, and a stream selects its rows with it. Choose"
                        + " another 'offsetColumn', or set option 'dialect'."));
  }

  /** The source's rows above {@code after} and at most {@code upTo}: a micro-batch's query. */
  PushedQuery rows(Object after, Object upTo) {
    return reads.source().where(range(after, upTo));
  }

  /** The largest value above {@code after} and at most {@code upTo}; null when there is none. */
  Object newest(Object after, Object upTo) {
    return extreme(values(after, upTo, false, 1, 0, NEWEST), false);
  }

  /** The smallest value above {@code after} and at most {@code upTo}; null when there is none. */
  Object oldest(Object after, Object upTo) {
    return extreme(values(after, upTo, true, 1, 0, OLDEST), true);
  }

  /**
   * The value of the row that follows the first {@code rows} rows above {@code after} (at most
   * {@code upTo}) in the column's order; null when there are no more rows than that. Asked with
   * {@code LIMIT 1 OFFSET rows}; where the dialect cannot write that or the server refuses it
   * (Deephaven), with {@code LIMIT rows + 1}, whose values all come to the driver.
   */
  Object following(Object after, Object upTo, int rows) {
    resolve();
    Dialect dialect = reads.source().dialect();
    if (!offsetRefused && dialect.limitOffset(1, rows).isPresent()) {
      try {
        return extreme(values(after, upTo, true, 1, rows, FOLLOWING), true);
      } catch (FlightSqlConnectorException e) {
        if (FlightErrors.isAboutTheCall(e)) {
          throw e;
        }
        offsetRefused = true;
        LOG.warn(
            "{} refused the OFFSET of the query for the end of a micro-batch ({}): the stream of {}"
                + " reads the first {} values of its offset column instead",
            reads.config().uri(),
            e.getMessage(),
            reads.config().displayName(),
            rows + 1);
      }
    }
    List<Object> first = values(after, upTo, true, rows + 1, 0, FOLLOWING);
    return first.size() > rows ? extreme(first, false) : null;
  }

  /** The smallest (or largest) of {@code values}; null for none. */
  private Object extreme(List<Object> values, boolean smallest) {
    Object found = null;
    for (Object value : values) {
      if (found == null || (column.compare(value, found) < 0) == smallest) {
        found = value;
      }
    }
    return found;
  }

  /**
   * The column's values, NULLs left out, of at most {@code limit} rows above {@code after} and at
   * most {@code upTo}, in the column's order, after skipping {@code skip} rows.
   */
  private List<Object> values(
      Object after, Object upTo, boolean ascending, int limit, int skip, String what) {
    resolve();
    Dialect dialect = reads.source().dialect();
    if (!dialect.limitOffset(limit, skip).isPresent()) {
      throw new IllegalArgumentException(
          "Dialect '"
              + dialect.name()
              + "' cannot write a LIMIT "
              + limit
              + (skip > 0 ? " OFFSET " + skip : "")
              + ", which a stream needs to find "
              + what
              + "; set option 'dialect'");
    }
    PushedQuery query =
        rows(after, upTo)
            .select(Collections.singletonList(columnSql))
            .orderBy(Collections.singletonList(columnSql + (ascending ? " ASC" : " DESC")))
            .limit(limit)
            .offset(skip);
    List<InternalRow> answer;
    try {
      answer = reads.rowsOnDriver(query, oneColumn);
    } catch (FlightSqlConnectorException e) {
      throw FlightErrors.amend(
          e, "The streaming read of " + reads.config().displayName() + " was looking for " + what);
    }
    List<Object> values = new ArrayList<>();
    for (InternalRow row : answer) {
      Object value = column.fromRow(row, 0);
      if (value != null) {
        values.add(value);
      }
    }
    return values;
  }
}
