package io.flightsql.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The SQL of the optimizer's pushdowns, without a server: runtime filters (IN lists, ranges, what
 * cannot be written), joins of two reads, samples and queries the connector wrote.
 */
class OptimizerSqlTest {
  private static final Dialect DUCKDB = Dialects.named("duckdb", "\"");
  private static final Dialect SPARK = Dialects.named("spark", "`");
  private static final Dialect SQLITE = Dialects.named("sqlite", "\"");
  private static final StructType SCHEMA =
      new StructType()
          .add("k", DataTypes.LongType)
          .add("s", DataTypes.StringType)
          .add("d", DataTypes.DoubleType)
          .add("dt", DataTypes.DateType)
          .add("b", DataTypes.BinaryType)
          .add("u", DataTypes.StringType);

  /** Runtime filters over {@link #SCHEMA}, where every column but {@code u} compares as Spark's. */
  private static RuntimeFilterSql filters(Dialect dialect, int maxValues) {
    return new RuntimeFilterSql(
        dialect, new SourceColumns(SCHEMA, Set.of("k", "s", "d", "dt", "b"), dialect), maxValues);
  }

  /** Spark's runtime filter: {@code column IN (values)}, values in Spark's internal form. */
  private static Predicate in(String column, DataType type, Object... values) {
    List<Expression> children = new ArrayList<>();
    children.add(FieldReference.column(column));
    for (Object value : values) {
      children.add(new LiteralValue<>(value, type));
    }
    return new Predicate("IN", children.toArray(new Expression[0]));
  }

  private static UTF8String utf8(String s) {
    return UTF8String.fromString(s);
  }

  @Test
  void aRuntimeFilterIsAnInListOfTheDialectsLiteralsWithoutItsNulls() {
    assertThat(filters(DUCKDB, 10).condition(in("k", DataTypes.LongType, 3L, null, 1L)))
        .contains("(\"k\" IN (3, 1))");
    assertThat(
            filters(DUCKDB, 10)
                .condition(
                    in("s", DataTypes.StringType, utf8("it's"), utf8("'; DROP TABLE x; --"))))
        .contains("(\"s\" IN ('it''s', '''; DROP TABLE x; --'))");
    // Spark SQL reads 'it''s' as two literals: its dialect writes double quotes.
    assertThat(filters(SPARK, 10).condition(in("s", DataTypes.StringType, utf8("it's"))))
        .contains("(`s` IN (\"it's\"))");
    assertThat(filters(DUCKDB, 10).condition(in("k", DataTypes.LongType, (Object) null)))
        .contains("(1 = 0)");
    assertThat(filters(DUCKDB, 10).condition(in("k", DataTypes.LongType))).contains("(1 = 0)");
  }

  @Test
  void aLongListIsSentAsTheRangeFromItsSmallestToItsLargestValue() {
    assertThat(filters(DUCKDB, 2).condition(in("k", DataTypes.LongType, 5L, -2L, 9L)))
        .contains("(\"k\" >= -2 AND \"k\" <= 9)");
    assertThat(filters(DUCKDB, 1).condition(in("s", DataTypes.StringType, utf8("b"), utf8("a"))))
        .contains("(\"s\" >= 'a' AND \"s\" <= 'b')");
    // Spark orders strings by their UTF-8 bytes: 'Z' < 'a' < 'é'.
    assertThat(
            filters(DUCKDB, 1)
                .condition(in("s", DataTypes.StringType, utf8("a"), utf8("é"), utf8("Z"))))
        .contains("(\"s\" >= 'Z' AND \"s\" <= 'é')");
    assertThat(filters(DUCKDB, 1).condition(in("dt", DataTypes.DateType, 19_000, 18_000)))
        .contains("(\"dt\" >= DATE '2019-04-14' AND \"dt\" <= DATE '2022-01-08')");
    // More than RuntimeFilterSql.MAX_CHARS characters of literals: a range too.
    String longString = "x".repeat(RuntimeFilterSql.MAX_CHARS);
    assertThat(
            filters(DUCKDB, 10)
                .condition(in("s", DataTypes.StringType, utf8(longString), utf8("a"))))
        .contains("(\"s\" >= 'a' AND \"s\" <= '" + longString + "')");
    assertThat(RuntimeFilterSql.compare(new byte[] {(byte) 0x80}, new byte[] {0x7f}).get())
        .isPositive();
  }

  /**
   * On a server whose string order is not known to be Spark's, string keys get an IN list (which a
   * collation ignoring case makes match more rows, never fewer) but never a range: over the most
   * values, nothing. Other types keep their ranges.
   */
  @Test
  void aServerOfUnknownStringOrderGetsNoRangeOfStrings() {
    RuntimeFilterSql unknown =
        new RuntimeFilterSql(
            DUCKDB, new SourceColumns(SCHEMA, Set.of("k", "s", "d", "dt", "b"), DUCKDB, false), 1);
    assertThat(unknown.condition(in("s", DataTypes.StringType, utf8("b"), utf8("a")))).isEmpty();
    assertThat(unknown.condition(in("s", DataTypes.StringType, utf8("B"))))
        .contains("(\"s\" IN ('B'))");
    assertThat(unknown.filterable("s")).isTrue();
    assertThat(unknown.condition(in("k", DataTypes.LongType, 5L, -2L)))
        .contains("(\"k\" >= -2 AND \"k\" <= 5)");
  }

  @Test
  void whatCannotBeWrittenExactlyIsNotFiltered() {
    // NaN has no literal, in a list or as a bound; an unknown column, or one the server compares
    // otherwise, is not filtered.
    assertThat(filters(DUCKDB, 10).condition(in("d", DataTypes.DoubleType, 1.0, Double.NaN)))
        .isEmpty();
    assertThat(filters(DUCKDB, 10).condition(in("u", DataTypes.StringType, utf8("a")))).isEmpty();
    assertThat(filters(DUCKDB, 10).condition(in("nope", DataTypes.LongType, 1L))).isEmpty();
    assertThat(filters(DUCKDB, 10).filterable("u")).isFalse();
    // SQLite keeps dates as text: no date literal compares as Spark's dates do.
    assertThat(filters(SQLITE, 10).filterable("dt")).isFalse();
    assertThat(filters(SQLITE, 10).filterable("k")).isTrue();
    assertThat(
            filters(DUCKDB, 10)
                .condition(new Predicate("=", new Expression[] {FieldReference.column("k")})))
        .isEmpty();
  }

  @Test
  void aJoinSelectsEachSideUnderItsNamesInTheJoin() {
    PushedQuery left =
        PushedQuery.over(DUCKDB, "SELECT * FROM t", "t").where(List.of("(\"v\" > 0)"));
    PushedQuery right = PushedQuery.over(DUCKDB, "SELECT * FROM u WHERE x = 1", null);
    JoinSql.Side l = new JoinSql.Side(left, List.of("\"id\"", "\"k\""), List.of("id", "k"));
    JoinSql.Side r = new JoinSql.Side(right, List.of("\"id\""), List.of("id_1"));
    assertThat(JoinSql.write(DUCKDB, JoinSql.Kind.INNER, l, r, "(\"k\" = \"id_1\")"))
        .isEqualTo(
            "SELECT \"id\", \"k\", \"id_1\" FROM (SELECT \"id\" AS \"id\", \"k\" AS \"k\" FROM t"
                + " WHERE (\"v\" > 0)\n) AS \"flightsql_left\" INNER JOIN (SELECT \"id\" AS"
                + " \"id_1\" FROM (SELECT * FROM u WHERE x = 1\n) AS \"flightsql_source\"\n) AS"
                + " \"flightsql_right\" ON (\"k\" = \"id_1\")");
    // A right join is the left join of the sides swapped, the left side's columns first.
    assertThat(JoinSql.write(DUCKDB, JoinSql.Kind.RIGHT, l, r, "c"))
        .startsWith("SELECT \"id\", \"k\", \"id_1\" FROM (SELECT \"id\" AS \"id_1\"")
        .contains("AS \"flightsql_right\" LEFT OUTER JOIN (SELECT \"id\" AS \"id\"")
        .endsWith("AS \"flightsql_left\" ON c");
  }

  @Test
  void aQueryTheConnectorWroteIsSentAsItIsAndComposedAround() {
    PushedQuery joined = PushedQuery.overWritten(DUCKDB, "SELECT 1 AS \"a\"");
    assertThat(joined.composed()).isTrue();
    assertThat(joined.sql()).isEqualTo("SELECT 1 AS \"a\"");
    assertThat(joined.where(List.of("(\"a\" > 0)")).sql())
        .isEqualTo("SELECT * FROM (SELECT 1 AS \"a\"\n) AS \"flightsql_source\" WHERE (\"a\" > 0)");
    assertThat(joined.rowsOnly()).isTrue();
    assertThat(joined.limit(3).rowsOnly()).isFalse();
  }

  @Test
  void aSampleFollowsTheTableItSamples() {
    Optional<String> clause = DUCKDB.tableSample(0.125, -1);
    assertThat(clause).contains("TABLESAMPLE bernoulli(12.5 PERCENT) REPEATABLE (2147483646)");
    PushedQuery sampled =
        PushedQuery.over(DUCKDB, "SELECT * FROM t", "t").sample(clause.get()).where(List.of("c"));
    assertThat(sampled.sql())
        .isEqualTo(
            "SELECT * FROM t TABLESAMPLE bernoulli(12.5 PERCENT) REPEATABLE (2147483646) WHERE c");
    assertThat(SPARK.tableSample(0.5, 7)).contains("TABLESAMPLE (50 PERCENT) REPEATABLE (7)");
    assertThat(SQLITE.tableSample(0.5, 7)).isEmpty();
    assertThat(Dialects.named("ansi", "\"").tableSample(0.5, 7)).isEmpty();
    assertThat(DUCKDB.tableSample(1e-7, 1))
        .contains("TABLESAMPLE bernoulli(0.00001 PERCENT) REPEATABLE (1)");
  }
}
