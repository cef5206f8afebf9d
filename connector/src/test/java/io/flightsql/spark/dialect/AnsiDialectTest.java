package io.flightsql.spark.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.metadata.TableRef;
import java.time.LocalDate;
import java.util.Optional;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The rules every dialect shares, which are ANSI's: quoting, string escaping, numbers, and the
 * statements of a write. Without Spark or a server.
 */
class AnsiDialectTest {
  private static final Dialect ANSI = new AnsiDialect("\"");

  private static Optional<String> lit(Object value, DataType type) {
    return ANSI.literal(value, type);
  }

  @Test
  void identifiersAreQuotedWithTheQuoteDoubledInsideAndUnsafeOnesRefused() {
    assertThat(ANSI.identifier("a\"b c.d`e").get()).isEqualTo("\"a\"\"b c.d`e\"");
    assertThat(ANSI.identifier("nul\0here")).isEmpty();
    assertThat(ANSI.identifier("lone \uD800 surrogate")).isEmpty();
    assertThatThrownBy(() -> ANSI.quoted("nul\0here"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holds a NUL character or a lone UTF-16 surrogate");
    assertThat(ANSI.table(new TableRef("c", "s\"", "t"))).isEqualTo("\"c\".\"s\"\"\".\"t\"");
    assertThat(ANSI.subquery("SELECT 1 -- c", "src")).isEqualTo("(SELECT 1 -- c\n) AS \"src\"");
  }

  @Test
  void stringsDoubleTheirQuotesAndAreRefusedWhereABackslashCouldEscape() {
    assertThat(lit(UTF8String.fromString("it's"), DataTypes.StringType).get()).isEqualTo("'it''s'");
    assertThat(lit("'; DROP TABLE canary; --", DataTypes.StringType).get())
        .isEqualTo("'''; DROP TABLE canary; --'");
    // A server of unknown dialect may read a backslash as an escape: not written at all.
    assertThat(lit("\\'", DataTypes.StringType)).isEmpty();
    assertThat(lit("nul\0", DataTypes.StringType)).isEmpty();
    assertThat(lit("\uDC00", DataTypes.StringType)).isEmpty();
    assertThat(lit("tab\t\u2019\uFF07\u02BC\n", DataTypes.StringType).get())
        .isEqualTo("'tab\t\u2019\uFF07\u02BC\n'");
  }

  @Test
  void numbersBooleansBinaryAndNull() {
    assertThat(lit(true, DataTypes.BooleanType).get()).isEqualTo("TRUE");
    assertThat(lit((byte) -128, DataTypes.ByteType).get()).isEqualTo("-128");
    assertThat(lit((short) 7, DataTypes.ShortType).get()).isEqualTo("7");
    assertThat(lit(42, DataTypes.IntegerType).get()).isEqualTo("42");
    assertThat(lit(Long.MIN_VALUE, DataTypes.LongType).get())
        .isEqualTo("(-9223372036854775807 - 1)");
    assertThat(lit(0.1, DataTypes.DoubleType).get()).isEqualTo("0.1E0");
    assertThat(lit(1e300, DataTypes.DoubleType).get()).isEqualTo("1.0E300");
    assertThat(lit(-0.0, DataTypes.DoubleType).get()).isEqualTo("-0.0E0");
    assertThat(lit(Double.NaN, DataTypes.DoubleType)).isEmpty();
    assertThat(lit(Double.POSITIVE_INFINITY, DataTypes.DoubleType)).isEmpty();
    assertThat(lit(0.5f, DataTypes.FloatType).get()).isEqualTo("CAST(0.5E0 AS REAL)");
    assertThat(lit(Float.NaN, DataTypes.FloatType)).isEmpty();
    byte[] bytes = {(byte) 0xDE, (byte) 0xAD, 0x00, 0x27};
    assertThat(lit(bytes, DataTypes.BinaryType).get()).isEqualTo("X'DEAD0027'");
    assertThat(lit(null, DataTypes.IntegerType).get()).isEqualTo("NULL");
  }

  @Test
  void datesAndTimestampsAreTypedLiteralsAndZonedOnesCarryUtc() {
    assertThat(lit((int) LocalDate.of(2024, 1, 2).toEpochDay(), DataTypes.DateType).get())
        .isEqualTo("DATE '2024-01-02'");
    // 1969-07-20 20:17:40.5 UTC, a negative number of microseconds.
    long micros = -14_182_939_500_000L;
    assertThat(lit(micros, DataTypes.TimestampNTZType).get())
        .isEqualTo("TIMESTAMP '1969-07-20 20:17:40.500000'");
    assertThat(lit(micros, DataTypes.TimestampType).get())
        .isEqualTo("TIMESTAMP WITH TIME ZONE '1969-07-20 20:17:40.500000+00:00'");
    // Year 10000 has no four-digit form.
    assertThat(lit((int) LocalDate.of(10_000, 1, 1).toEpochDay(), DataTypes.DateType)).isEmpty();
  }

  @Test
  void likeEscapesWildcardsNullSafeEqualityIsTwoValuedAndLimitsAreStandard() {
    assertThat(ANSI.stringMatch("\"c\"", "CONTAINS", "").get())
        .isEqualTo("(\"c\" LIKE '%%' ESCAPE '!')");
    assertThat(ANSI.stringMatch("\"c\"", "STARTS_WITH", "50%_off!").get())
        .isEqualTo("(\"c\" LIKE '50!%!_off!!%' ESCAPE '!')");
    assertThat(ANSI.nullSafeEqual("a", "b"))
        .isEqualTo("((a IS NULL AND b IS NULL) OR (a IS NOT NULL AND b IS NOT NULL AND a = b))");
    assertThat(ANSI.limitOffset(5, 0).get()).isEqualTo("LIMIT 5");
    assertThat(ANSI.limitOffset(5, 3).get()).isEqualTo("LIMIT 5 OFFSET 3");
    assertThat(ANSI.limitOffset(-1, 3).get()).isEqualTo("OFFSET 3");
    assertThat(ANSI.limitOffset(0, 0)).isEmpty();
    assertThat(ANSI.orderItem("a", false, false).get()).isEqualTo("a DESC NULLS LAST");
  }

  @Test
  void writeStatementsQuoteEveryNameAndTypesAreStandard() {
    StructType schema =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("na\"me", DataTypes.StringType)
            .add("at", DataTypes.TimestampType);
    TableRef table = new TableRef(null, "s", "t");
    assertThat(ANSI.createTable(table, schema))
        .isEqualTo(
            "CREATE TABLE \"s\".\"t\" (\"id\" BIGINT NOT NULL, \"na\"\"me\" VARCHAR,"
                + " \"at\" TIMESTAMP WITH TIME ZONE)");
    assertThat(ANSI.insert(table, schema))
        .isEqualTo("INSERT INTO \"s\".\"t\" (\"id\", \"na\"\"me\", \"at\") VALUES (?, ?, ?)");
    assertThat(ANSI.insertSelect(table, table.withName("stage"), schema))
        .isEqualTo(
            "INSERT INTO \"s\".\"t\" (\"id\", \"na\"\"me\", \"at\") SELECT \"id\", \"na\"\"me\","
                + " \"at\" FROM \"s\".\"stage\"");
    assertThat(ANSI.deleteAll(table)).isEqualTo("DELETE FROM \"s\".\"t\"");
    assertThat(ANSI.dropTable(table)).isEqualTo("DROP TABLE \"s\".\"t\"");
    assertThat(ANSI.columnType(DataTypes.ByteType, "b")).isEqualTo("SMALLINT");
    assertThat(ANSI.columnType(DataTypes.BinaryType, "b")).isEqualTo("VARBINARY");
    assertThatThrownBy(
            () ->
                ANSI.createTable(
                    table,
                    new StructType().add("tags", DataTypes.createArrayType(DataTypes.StringType))))
        .hasMessageStartingWith(
            "Column 'tags' has Spark type array<string>, for which spark-flightsql knows no"
                + " column type in dialect 'ansi'");
  }

  @Test
  void hasNoStatementToRenameATable() {
    assertThat(
            ANSI.renameTable(new io.flightsql.spark.client.metadata.TableRef(null, "s", "a"), "b"))
        .isEmpty();
  }
}
