package io.flightsql.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Not;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** Queries composed around the user's, and Spark expressions written as SQL, without a server. */
class PushedQueryTest {
  private static final Dialect DUCKDB = Dialects.named("duckdb", "\"");
  private static final Dialect DERBY = Dialects.named("derby", "\"");

  /** A reference to a top-level column, its name taken as it is. */
  private static NamedReference column(String name) {
    return nested(name);
  }

  private static NamedReference nested(String... names) {
    return new NamedReference() {
      @Override
      public String[] fieldNames() {
        return names;
      }
    };
  }

  @Test
  void queriesAreComposedAroundTheUsersQueryOrTable() {
    PushedQuery q = PushedQuery.over(DUCKDB, "SELECT * FROM t -- trailing comment", null);
    assertThat(q.sql()).isEqualTo("SELECT * FROM t -- trailing comment");
    assertThat(q.sql("\"x\" < 10"))
        .isEqualTo(
            "SELECT * FROM (SELECT * FROM t -- trailing comment\n) AS \"flightsql_source\""
                + " WHERE (\"x\" < 10)");
    PushedQuery agg =
        PushedQuery.over(DERBY, "SELECT * FROM \"T\"", "\"T\"")
            .select(List.of("\"g\"", "COUNT(*) AS \"n\""))
            .where(List.of("(\"a\" = 1)"))
            .groupBy(List.of("\"g\""))
            .limit(10);
    assertThat(agg.sql())
        .isEqualTo(
            "SELECT \"g\", COUNT(*) AS \"n\" FROM \"T\" WHERE (\"a\" = 1) GROUP BY \"g\""
                + " FETCH FIRST 10 ROWS ONLY");
    assertThat(agg.sql("\"id\" >= 0 AND \"id\" < 100"))
        .isEqualTo(
            "SELECT \"g\", COUNT(*) AS \"n\" FROM \"T\" WHERE (\"a\" = 1) AND (\"id\" >= 0 AND"
                + " \"id\" < 100) GROUP BY \"g\" FETCH FIRST 10 ROWS ONLY");
  }

  @Test
  void predicatesOverColumnsResolveNamesAndRefuseWhatCannotBeWritten() {
    StructType schema =
        new StructType()
            .add("Id", DataTypes.LongType)
            .add("name with \"quote\"", DataTypes.StringType)
            .add("u", DataTypes.StringType)
            .add("s", new StructType().add("a", DataTypes.IntegerType));
    SourceColumns columns =
        new SourceColumns(schema, Set.of("Id", "name with \"quote\"", "s"), DUCKDB);
    ExpressionSql sql = new ExpressionSql(DUCKDB, columns);
    Expression id = column("id");
    Expression name = column("name with \"quote\"");
    Predicate eq =
        new Predicate("=", new Expression[] {id, new LiteralValue<>(5L, DataTypes.LongType)});
    assertThat(sql.predicate(eq).get()).isEqualTo("(\"Id\" = 5)");
    Predicate like =
        new Predicate(
            "STARTS_WITH",
            new Expression[] {
              name, new LiteralValue<>(UTF8String.fromString("a_"), DataTypes.StringType)
            });
    assertThat(sql.predicate(new Not(like)).get())
        .isEqualTo("(NOT (\"name with \"\"quote\"\"\" LIKE 'a!_%' ESCAPE '!'))");
    Predicate in =
        new Predicate(
            "IN",
            new Expression[] {
              id,
              new LiteralValue<>(1L, DataTypes.LongType),
              new LiteralValue<>(null, DataTypes.LongType)
            });
    assertThat(sql.predicate(in).get()).isEqualTo("(\"Id\" IN (1, NULL))");
    // A column the server does not compare as Spark does (u), and a nested field, stay in Spark.
    Predicate onUnion =
        new Predicate(
            "=",
            new Expression[] {
              column("u"), new LiteralValue<>(UTF8String.fromString("1"), DataTypes.StringType)
            });
    assertThat(sql.predicate(onUnion)).isEmpty();
    Predicate nested = new Predicate("IS_NULL", new Expression[] {nested("s", "a")});
    assertThat(sql.predicate(nested)).isEmpty();
    Predicate nan =
        new Predicate(
            "=", new Expression[] {id, new LiteralValue<>(Double.NaN, DataTypes.DoubleType)});
    assertThat(sql.predicate(nan)).isEmpty();
  }
}
