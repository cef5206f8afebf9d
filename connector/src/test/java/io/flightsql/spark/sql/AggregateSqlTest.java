package io.flightsql.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Which aggregates each dialect is asked to compute, and in what SQL, without a server. */
class AggregateSqlTest {
  private static final StructType SCHEMA =
      new StructType()
          .add("r", DataTypes.FloatType)
          .add("d", DataTypes.DoubleType)
          .add("i", DataTypes.IntegerType);

  private static Optional<String> pushed(String dialectName, String quote, AggregateFunc f) {
    Dialect dialect = Dialects.named(dialectName, quote);
    AggregateSql sql =
        new AggregateSql(dialect, new SourceColumns(SCHEMA, Set.of("r", "d", "i"), dialect), true);
    return sql.aggregate(f).map(AggregateSql.Typed::sql);
  }

  /** Sail answers MIN(c) of a group of Infinity with Float.MAX: Spark must compute it. */
  @Test
  void minAndMaxOfFloatsAreNotPushedToSparkSqlServers() {
    for (String c : new String[] {"r", "d"}) {
      assertThat(pushed("spark", "`", new Min(Expressions.column(c)))).isEmpty();
      assertThat(pushed("spark", "`", new Max(Expressions.column(c)))).isEmpty();
    }
    assertThat(pushed("spark", "`", new Min(Expressions.column("i")))).contains("MIN(`i`)");
    assertThat(pushed("spark", "`", new Max(Expressions.column("i")))).contains("MAX(`i`)");
  }

  @Test
  void minAndMaxOfFloatsArePushedWhereTheServerAnswersAsSpark() {
    assertThat(pushed("duckdb", "\"", new Min(Expressions.column("r")))).contains("MIN(\"r\")");
    assertThat(pushed("duckdb", "\"", new Max(Expressions.column("d")))).contains("MAX(\"d\")");
  }
}
