package io.flightsql.spark.read;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.sql.ExpressionSql;
import io.flightsql.spark.sql.JoinSql;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.sql.SourceColumns;
import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.types.ComparableColumns;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins two reads of one server into one query that the server runs ({@link JoinSql}), for Spark
 * 4.1's join pushdown: the sides' queries as pushed so far (filters, samples), the columns the join
 * needs under distinct names, and the condition over those names. A join is pushed only when every
 * part can be written so that the server computes what Spark would: the condition's operands are
 * columns that both the server and Spark compare alike, and the server, asked for the joined
 * query's schema with {@code 1 = 0} added, answers with the very Spark types the two reads have.
 * Knows nothing of Spark 4.1's own types, which {@code JoinPushdownScanBuilder} turns into these.
 * Driver only.
 */
final class JoinPushdown {
  private static final Logger LOG = LoggerFactory.getLogger(JoinPushdown.class);

  private JoinPushdown() {}

  /**
   * A column one side gives the join: its name in the side's relation, and its name in the join's
   * result where Spark renamed it to keep the names distinct (null otherwise).
   */
  static final class JoinColumn {
    final String name;
    final String alias;

    JoinColumn(String name, String alias) {
      this.name = name;
      this.alias = alias;
    }

    String joinName() {
      return alias != null ? alias : name;
    }
  }

  /** One side of a join, as its scan builder has pushed it so far. */
  static final class Side {
    final PushdownContext context;
    final PushedQuery query;
    final StructType schema;
    final String name;
    final List<JoinColumn> columns;

    Side(
        PushdownContext context,
        PushedQuery query,
        StructType schema,
        String name,
        List<JoinColumn> columns) {
      this.context = context;
      this.query = query;
      this.schema = schema;
      this.name = name;
      this.columns = columns;
    }
  }

  /** The joined read, which the left side's builder continues with. */
  static final class Joined {
    final StructType schema;
    final PushdownContext context;
    final PushedQuery query;
    final String description;

    private Joined(
        StructType schema, PushdownContext context, PushedQuery query, String description) {
      this.schema = schema;
      this.context = context;
      this.query = query;
      this.description = description;
    }
  }

  /**
   * The join of {@code left} and {@code right}, or empty when it cannot be written so that the
   * server computes what Spark would, or the server refuses it (logged at info).
   *
   * @param probes the left builder's session, which asks the server for the joined query's schema
   */
  static Optional<Joined> join(
      FlightSqlReadConfig config,
      Side left,
      Side right,
      JoinSql.Kind kind,
      Predicate condition,
      PushdownProbes probes) {
    Dialect dialect = left.context.dialect;
    List<StructField> fields = new ArrayList<>();
    Set<String> comparable = new HashSet<>();
    Optional<JoinSql.Side> leftSql =
        side(left, kind == JoinSql.Kind.RIGHT, dialect, fields, comparable);
    Optional<JoinSql.Side> rightSql =
        side(right, kind == JoinSql.Kind.LEFT, dialect, fields, comparable);
    StructType schema = new StructType(fields.toArray(new StructField[0]));
    if (!leftSql.isPresent() || !rightSql.isPresent() || !distinctIgnoringCase(schema)) {
      return refused(left, right, "a column cannot be named in SQL");
    }
    SourceColumns columns =
        new SourceColumns(schema, comparable, dialect, left.context.columns.stringsAsSpark());
    Optional<String> on = new ExpressionSql(dialect, columns).predicate(condition);
    if (!on.isPresent()) {
      return refused(left, right, "the condition " + condition + " cannot be written");
    }
    PushedQuery joined =
        PushedQuery.overWritten(
            dialect, JoinSql.write(dialect, kind, leftSql.get(), rightSql.get(), on.get()));
    String probe = joined.where(Collections.singletonList("(1 = 0)")).sql();
    Schema answer;
    try {
      answer = probes.session().resultSchema(probe);
    } catch (RuntimeException e) {
      probes.raiseUnlessAnswer(e);
      return refused(left, right, "the server refused " + probe + " (" + e.getMessage() + ")");
    }
    StructType served;
    try {
      served = ArrowToSpark.toSparkSchema(answer, config.typeOptions());
    } catch (RuntimeException e) {
      return refused(left, right, "Spark cannot read the server's answer: " + e.getMessage());
    }
    if (!sameTypes(served, schema)) {
      return refused(left, right, "the server answers it with " + served.simpleString());
    }
    comparable.retainAll(ComparableColumns.of(answer, schema));
    String description =
        left.name + " " + kind.sql() + " " + right.name + " ON " + condition.toString();
    LOG.debug("Join pushed: {}", joined.sql());
    return Optional.of(
        new Joined(
            schema,
            left.context.over(
                new SourceColumns(
                    schema, comparable, dialect, left.context.columns.stringsAsSpark())),
            joined,
            description));
  }

  /**
   * The side's columns in the join, added to {@code fields} (nullable where the join may leave them
   * NULL) and, where the side compares them as Spark does, to {@code comparable}; empty when one
   * cannot be named.
   */
  private static Optional<JoinSql.Side> side(
      Side side,
      boolean outerNullable,
      Dialect dialect,
      List<StructField> fields,
      Set<String> comparable) {
    List<String> sql = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (JoinColumn column : side.columns) {
      Optional<SourceColumns.Column> found =
          side.context.columns.resolve(new String[] {column.name});
      if (!found.isPresent()
          || found.get().sql() == null
          || !dialect.identifier(column.joinName()).isPresent()) {
        return Optional.empty();
      }
      StructField field = side.schema.fields()[side.schema.fieldIndex(found.get().name())];
      fields.add(
          new StructField(
              column.joinName(),
              field.dataType(),
              field.nullable() || outerNullable,
              field.metadata()));
      if (found.get().comparable()) {
        comparable.add(column.joinName());
      }
      sql.add(found.get().sql());
      names.add(column.joinName());
    }
    return names.isEmpty()
        ? Optional.empty()
        : Optional.of(new JoinSql.Side(side.query, sql, names));
  }

  /**
   * Whether the server's answer has the join's columns with the very Spark types of the reads,
   * nested nullability included (the outer join's nullable columns aside), so that Spark reads the
   * joined rows as it would have read each side.
   */
  private static boolean sameTypes(StructType served, StructType expected) {
    if (served.size() != expected.size()) {
      return false;
    }
    for (int i = 0; i < expected.size(); i++) {
      if (!served.fields()[i].dataType().equals(expected.fields()[i].dataType())) {
        return false;
      }
    }
    return true;
  }

  private static boolean distinctIgnoringCase(StructType schema) {
    Set<String> seen = new HashSet<>();
    for (String name : schema.fieldNames()) {
      if (!seen.add(name.toLowerCase(Locale.ROOT))) {
        return false;
      }
    }
    return true;
  }

  private static Optional<Joined> refused(Side left, Side right, String why) {
    LOG.info("Join of {} and {} not pushed: {}", left.name, right.name, why);
    return Optional.empty();
  }
}
