package io.flightsql.spark.read;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.sql.JoinSql;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.join.JoinType;
import org.apache.spark.sql.connector.read.SupportsPushDownJoin;
import org.apache.spark.sql.types.StructType;

/**
 * The scan builder of reads on Spark 4.1 and later, which also takes the join of two reads of one
 * server (Spark's {@link SupportsPushDownJoin}, with {@code
 * spark.sql.optimizer.datasourceV2JoinPushdown}): it turns Spark's join type and columns into the
 * connector's own ({@link JoinSql.Kind}, {@link JoinPushdown.JoinColumn}) and leaves the rest to
 * {@link FlightSqlScanBuilder#join}. The only class that names Spark 4.1's join types: {@link
 * ScanBuilders} loads it by name where they exist, and the Spark 3.5 compile leaves it out. Driver
 * only; not Serializable.
 */
final class JoinPushdownScanBuilder extends FlightSqlScanBuilder implements SupportsPushDownJoin {
  JoinPushdownScanBuilder(
      StructType schema,
      FlightSqlReadConfig config,
      Set<String> knownComparable,
      AtomicReference<ResolvedDialect> knownDialect) {
    super(schema, config, knownComparable, knownDialect);
  }

  @Override
  public boolean isOtherSideCompatibleForJoin(SupportsPushDownJoin other) {
    return other instanceof FlightSqlScanBuilder && joinableWith((FlightSqlScanBuilder) other);
  }

  @Override
  public boolean pushDownJoin(
      SupportsPushDownJoin other,
      JoinType joinType,
      SupportsPushDownJoin.ColumnWithAlias[] leftSideRequiredColumnsWithAliases,
      SupportsPushDownJoin.ColumnWithAlias[] rightSideRequiredColumnsWithAliases,
      Predicate condition) {
    JoinSql.Kind kind;
    switch (joinType) {
      case INNER_JOIN:
        kind = JoinSql.Kind.INNER;
        break;
      case LEFT_OUTER_JOIN:
        kind = JoinSql.Kind.LEFT;
        break;
      case RIGHT_OUTER_JOIN:
        kind = JoinSql.Kind.RIGHT;
        break;
      default:
        return false;
    }
    return other instanceof FlightSqlScanBuilder
        && join(
            (FlightSqlScanBuilder) other,
            kind,
            columns(leftSideRequiredColumnsWithAliases),
            columns(rightSideRequiredColumnsWithAliases),
            condition);
  }

  /**
   * Spark's columns with their aliases. {@code ColumnWithAlias} is a Java record, whose accessors
   * code compiled for Java 11 cannot call directly (see {@link Aggregations}): by reflection.
   */
  private static List<JoinPushdown.JoinColumn> columns(Object[] withAliases) {
    List<JoinPushdown.JoinColumn> columns = new ArrayList<>();
    for (Object column : withAliases) {
      columns.add(
          new JoinPushdown.JoinColumn(
              (String) accessor(column, "colName"), (String) accessor(column, "alias")));
    }
    return columns;
  }

  private static Object accessor(Object record, String name) {
    try {
      return record.getClass().getMethod(name).invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Spark's ColumnWithAlias has no " + name + "(): " + e, e);
    }
  }

  /** Made by {@link ScanBuilders}, by name. */
  static final class Factory implements ScanBuilders.Factory {
    public Factory() {}

    @Override
    public FlightSqlScanBuilder create(
        StructType schema,
        FlightSqlReadConfig config,
        Set<String> knownComparable,
        AtomicReference<ResolvedDialect> knownDialect) {
      return new JoinPushdownScanBuilder(schema, config, knownComparable, knownDialect);
    }
  }
}
