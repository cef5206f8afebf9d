package io.flightsql.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Not;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** SQL rendering and escaping per dialect, without Spark or a server. */
class QueryDialectTest {
  private static final QueryDialect ANSI = QueryDialect.of(SqlDialect.ANSI, "\"");
  private static final QueryDialect DUCKDB = QueryDialect.of(SqlDialect.DUCKDB, "\"");
  private static final QueryDialect SQLITE = QueryDialect.of(SqlDialect.SQLITE, "\"");
  private static final QueryDialect DERBY = QueryDialect.of(SqlDialect.DERBY, "\"");
  private static final QueryDialect MYSQL = QueryDialect.of(SqlDialect.MYSQL, null);

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

  private static Optional<String> lit(QueryDialect d, Object value, DataType type) {
    return d.literal(value, type);
  }

  @Test
  void autoChoosesFromTheServersNameAndForReadsItsVersion() {
    assertThat(SqlDialect.forServer("db_name", "sqlite 3")).isEqualTo(SqlDialect.SQLITE);
    assertThat(SqlDialect.forServerName("db_name")).isEqualTo(SqlDialect.ANSI);
    assertThat(SqlDialect.forServer("Apache Doris", "")).isEqualTo(SqlDialect.MYSQL);
    assertThat(SqlDialect.forServer("StarRocks", "3.2")).isEqualTo(SqlDialect.MYSQL);
    assertThat(SqlDialect.forServer("spark-flightsql DuckDB server", "v1.1"))
        .isEqualTo(SqlDialect.DUCKDB);
    assertThat(SqlDialect.forServer("Apache Derby", "")).isEqualTo(SqlDialect.DERBY);
    assertThat(SqlDialect.forServer("Dremio", "25.0")).isEqualTo(SqlDialect.ANSI);
  }

  @Test
  void identifiersAreQuotedWithTheServersQuoteDoubledInside() {
    assertThat(ANSI.identifier("a\"b c.d`e").get()).isEqualTo("\"a\"\"b c.d`e\"");
    assertThat(MYSQL.quote()).isEqualTo("`");
    assertThat(MYSQL.identifier("a`b\"c").get()).isEqualTo("`a``b\"c`");
    assertThat(QueryDialect.of(SqlDialect.ANSI, "`").identifier("x`").get()).isEqualTo("`x```");
    assertThat(ANSI.identifier("nul\0here")).isEmpty();
    assertThat(ANSI.identifier("lone \uD800 surrogate")).isEmpty();
  }

  @Test
  void stringsDoubleTheirQuotesAndNeverUseBackslashEscapes() {
    assertThat(lit(DUCKDB, UTF8String.fromString("it's"), DataTypes.StringType).get())
        .isEqualTo("'it''s'");
    assertThat(lit(DUCKDB, "'; DROP TABLE canary; --", DataTypes.StringType).get())
        .isEqualTo("'''; DROP TABLE canary; --'");
    assertThat(lit(DUCKDB, "back\\slash", DataTypes.StringType).get()).isEqualTo("'back\\slash'");
    assertThat(lit(SQLITE, "back\\slash", DataTypes.StringType).get()).isEqualTo("'back\\slash'");
    assertThat(lit(DERBY, "back\\slash", DataTypes.StringType).get()).isEqualTo("'back\\slash'");
    // Where a backslash may be an escape, the string is not written at all.
    assertThat(lit(MYSQL, "back\\slash", DataTypes.StringType)).isEmpty();
    assertThat(lit(ANSI, "\\'", DataTypes.StringType)).isEmpty();
    assertThat(lit(DUCKDB, "nul\0", DataTypes.StringType)).isEmpty();
    assertThat(lit(DUCKDB, "\uDC00", DataTypes.StringType)).isEmpty();
    assertThat(lit(DUCKDB, "tab\t\u2019\uFF07\u02BC\n", DataTypes.StringType).get())
        .isEqualTo("'tab\t\u2019\uFF07\u02BC\n'");
    assertThat(lit(DERBY, "x".repeat(32_673), DataTypes.StringType)).isEmpty();
    assertThat(lit(DUCKDB, "x".repeat(100_000), DataTypes.StringType)).isPresent();
  }

  @Test
  void numbersBooleansAndBinary() {
    assertThat(lit(ANSI, true, DataTypes.BooleanType).get()).isEqualTo("TRUE");
    assertThat(lit(SQLITE, false, DataTypes.BooleanType).get()).isEqualTo("0");
    assertThat(lit(ANSI, (byte) -128, DataTypes.ByteType).get()).isEqualTo("-128");
    assertThat(lit(ANSI, (short) 7, DataTypes.ShortType).get()).isEqualTo("7");
    assertThat(lit(ANSI, 42, DataTypes.IntegerType).get()).isEqualTo("42");
    assertThat(lit(ANSI, Long.MIN_VALUE, DataTypes.LongType).get())
        .isEqualTo("(-9223372036854775807 - 1)");
    assertThat(lit(ANSI, 0.1, DataTypes.DoubleType).get()).isEqualTo("0.1E0");
    assertThat(lit(ANSI, 1e300, DataTypes.DoubleType).get()).isEqualTo("1.0E300");
    assertThat(lit(ANSI, -0.0, DataTypes.DoubleType).get()).isEqualTo("-0.0E0");
    assertThat(lit(ANSI, Double.NaN, DataTypes.DoubleType)).isEmpty();
    assertThat(lit(ANSI, Double.POSITIVE_INFINITY, DataTypes.DoubleType)).isEmpty();
    assertThat(lit(DERBY, Double.MIN_VALUE, DataTypes.DoubleType)).isEmpty();
    assertThat(lit(DUCKDB, 0.5f, DataTypes.FloatType).get()).isEqualTo("CAST(0.5E0 AS REAL)");
    assertThat(lit(DUCKDB, Float.NaN, DataTypes.FloatType)).isEmpty();
    assertThat(lit(SQLITE, 0.5f, DataTypes.FloatType)).isEmpty();
    DataType dec = DataTypes.createDecimalType(38, 10);
    Decimal big = Decimal.apply(new BigDecimal("-9999999999999999999999999999.9999999999"));
    assertThat(lit(DUCKDB, big, dec).get()).isEqualTo("(-9999999999999999999999999999.9999999999)");
    assertThat(lit(DERBY, big, dec)).isEmpty();
    assertThat(lit(DERBY, Decimal.apply(new BigDecimal("1.50")), dec).get()).isEqualTo("1.50");
    assertThat(lit(SQLITE, Decimal.apply(new BigDecimal("1.5")), dec)).isEmpty();
    byte[] bytes = {(byte) 0xDE, (byte) 0xAD, 0x00, 0x27};
    assertThat(lit(ANSI, bytes, DataTypes.BinaryType).get()).isEqualTo("X'DEAD0027'");
    assertThat(lit(SQLITE, bytes, DataTypes.BinaryType).get()).isEqualTo("X'DEAD0027'");
    assertThat(lit(DUCKDB, bytes, DataTypes.BinaryType).get()).isEqualTo("from_hex('DEAD0027')");
    assertThat(lit(ANSI, null, DataTypes.IntegerType).get()).isEqualTo("NULL");
  }

  @Test
  void datesAndTimestampsPerDialect() {
    int day = (int) LocalDate.of(2024, 1, 2).toEpochDay();
    assertThat(lit(ANSI, day, DataTypes.DateType).get()).isEqualTo("DATE '2024-01-02'");
    assertThat(lit(DUCKDB, day, DataTypes.DateType).get()).isEqualTo("DATE '2024-01-02'");
    assertThat(lit(DERBY, day, DataTypes.DateType).get()).isEqualTo("DATE('2024-01-02')");
    assertThat(lit(SQLITE, day, DataTypes.DateType)).isEmpty();
    int julian = (int) LocalDate.of(1500, 1, 1).toEpochDay();
    assertThat(lit(DERBY, julian, DataTypes.DateType)).isEmpty();
    assertThat(lit(DUCKDB, julian, DataTypes.DateType).get()).isEqualTo("DATE '1500-01-01'");
    // 1969-07-20 20:17:40.5 UTC, a negative number of microseconds.
    long micros = -14_182_939_500_000L;
    assertThat(lit(ANSI, micros, DataTypes.TimestampNTZType).get())
        .isEqualTo("TIMESTAMP '1969-07-20 20:17:40.500000'");
    assertThat(lit(DERBY, micros, DataTypes.TimestampNTZType).get())
        .isEqualTo("TIMESTAMP('1969-07-20 20:17:40.500000')");
    assertThat(lit(DUCKDB, micros, DataTypes.TimestampType).get())
        .isEqualTo("TIMESTAMPTZ '1969-07-20 20:17:40.500000+00:00'");
    assertThat(lit(ANSI, micros, DataTypes.TimestampType).get())
        .isEqualTo("TIMESTAMP WITH TIME ZONE '1969-07-20 20:17:40.500000+00:00'");
    assertThat(lit(DERBY, micros, DataTypes.TimestampType)).isEmpty();
    assertThat(lit(SQLITE, micros, DataTypes.TimestampType)).isEmpty();
    assertThat(lit(MYSQL, micros, DataTypes.TimestampType)).isEmpty();
  }

  @Test
  void likePatternsEscapeWildcardsAndTheEscapeCharacter() {
    assertThat(DUCKDB.stringMatch("\"c\"", "STARTS_WITH", "50%_off!").get())
        .isEqualTo("(\"c\" LIKE '50!%!_off!!%' ESCAPE '!')");
    assertThat(DERBY.stringMatch("\"c\"", "ENDS_WITH", "it's").get())
        .isEqualTo("(\"c\" LIKE '%it''s' ESCAPE '!')");
    assertThat(ANSI.stringMatch("\"c\"", "CONTAINS", "").get())
        .isEqualTo("(\"c\" LIKE '%%' ESCAPE '!')");
    assertThat(SQLITE.stringMatch("\"c\"", "STARTS_WITH", "Ab%").get())
        .isEqualTo("(instr(\"c\", 'Ab%') = 1)");
    assertThat(SQLITE.stringMatch("\"c\"", "ENDS_WITH", "x").get())
        .isEqualTo(
            "(length(\"c\") >= length('x') AND substr(\"c\", length(\"c\") - length('x') + 1) = 'x')");
    assertThat(MYSQL.stringMatch("`c`", "CONTAINS", "a\\b")).isEmpty();
  }

  @Test
  void nullSafeEqualityLimitsAndOrdering() {
    assertThat(DUCKDB.nullSafeEqual("a", "1")).isEqualTo("(a IS NOT DISTINCT FROM 1)");
    assertThat(SQLITE.nullSafeEqual("a", "1")).isEqualTo("(a IS 1)");
    assertThat(MYSQL.nullSafeEqual("a", "1")).isEqualTo("(a <=> 1)");
    assertThat(DERBY.nullSafeEqual("a", "b"))
        .isEqualTo("((a IS NULL AND b IS NULL) OR (a IS NOT NULL AND b IS NOT NULL AND a = b))");
    assertThat(ANSI.limitOffset(5, 0).get()).isEqualTo("LIMIT 5");
    assertThat(ANSI.limitOffset(5, 3).get()).isEqualTo("LIMIT 5 OFFSET 3");
    assertThat(ANSI.limitOffset(-1, 3).get()).isEqualTo("OFFSET 3");
    assertThat(SQLITE.limitOffset(-1, 3).get()).isEqualTo("LIMIT -1 OFFSET 3");
    assertThat(MYSQL.limitOffset(-1, 3).get()).isEqualTo("LIMIT 18446744073709551615 OFFSET 3");
    assertThat(DERBY.limitOffset(5, 3).get()).isEqualTo("OFFSET 3 ROWS FETCH FIRST 5 ROWS ONLY");
    assertThat(DERBY.limitOffset(5, 0).get()).isEqualTo("FETCH FIRST 5 ROWS ONLY");
    assertThat(DERBY.limitOffset(0, 0)).isEmpty();
    assertThat(DUCKDB.orderItem("a", false, false).get()).isEqualTo("a DESC NULLS LAST");
    assertThat(MYSQL.orderItem("a", true, true).get()).isEqualTo("a ASC");
    assertThat(MYSQL.orderItem("a", true, false)).isEmpty();
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
