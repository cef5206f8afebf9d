package io.flightsql.spark.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.metadata.TableRef;
import java.math.BigDecimal;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** What SQLite (arrow-go's Flight SQL example) writes differently from ANSI SQL. */
class SqliteDialectTest {
  private static final Dialect SQLITE = new SqliteDialect("");

  @Test
  void booleansAreIntegersAndWhatSqliteCannotCompareExactlyIsRefused() {
    assertThat(SQLITE.literal(false, DataTypes.BooleanType).get()).isEqualTo("0");
    assertThat(SQLITE.literal("back\\slash", DataTypes.StringType).get())
        .isEqualTo("'back\\slash'");
    assertThat(SQLITE.literal(0.5f, DataTypes.FloatType)).isEmpty();
    assertThat(
            SQLITE.literal(
                Decimal.apply(new BigDecimal("1.5")), DataTypes.createDecimalType(38, 10)))
        .isEmpty();
    assertThat(SQLITE.literal(19_724, DataTypes.DateType)).isEmpty();
    assertThat(SQLITE.literal(0L, DataTypes.TimestampNTZType)).isEmpty();
    assertThat(SQLITE.literal(0L, DataTypes.TimestampType)).isEmpty();
    assertThat(SQLITE.literal(new byte[] {1}, DataTypes.BinaryType).get()).isEqualTo("X'01'");
  }

  @Test
  void stringMatchesComparePositionsSinceLikeIgnoresCase() {
    assertThat(SQLITE.stringMatch("\"c\"", "STARTS_WITH", "Ab%").get())
        .isEqualTo("(instr(\"c\", 'Ab%') = 1)");
    assertThat(SQLITE.stringMatch("\"c\"", "CONTAINS", "b").get())
        .isEqualTo("(instr(\"c\", 'b') > 0)");
    assertThat(SQLITE.stringMatch("\"c\"", "ENDS_WITH", "x").get())
        .isEqualTo(
            "(length(\"c\") >= length('x') AND substr(\"c\", length(\"c\") - length('x') + 1) = 'x')");
    assertThat(SQLITE.nullSafeEqual("a", "1")).isEqualTo("(a IS 1)");
    assertThat(SQLITE.limitOffset(-1, 3).get()).isEqualTo("LIMIT -1 OFFSET 3");
  }

  @Test
  void tablesTakeOnlyTheDeclaredTypesTheServerKnows() {
    StructType schema =
        new StructType()
            .add("flag", DataTypes.BooleanType)
            .add("n", DataTypes.LongType)
            .add("f", DataTypes.FloatType)
            .add("s", DataTypes.StringType)
            .add("d", DataTypes.DateType);
    assertThat(SQLITE.createTable(new TableRef(null, null, "t"), schema))
        .isEqualTo(
            "CREATE TABLE \"t\" (\"flag\" tinyint, \"n\" integer, \"f\" float, \"s\" text,"
                + " \"d\" date)");
    assertThatThrownBy(() -> SQLITE.columnType(DataTypes.TimestampType, "at"))
        .hasMessageStartingWith("Column 'at' has Spark type timestamp");
  }

  @Test
  void renamesATableInItsSchema() {
    assertThat(
            SQLITE.renameTable(
                new io.flightsql.spark.client.metadata.TableRef(null, "main", "a"), "b"))
        .contains("ALTER TABLE \"main\".\"a\" RENAME TO \"b\"");
  }
}
