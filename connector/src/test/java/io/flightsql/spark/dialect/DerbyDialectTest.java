package io.flightsql.spark.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.metadata.TableRef;
import java.math.BigDecimal;
import java.time.LocalDate;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** What Apache Derby (Arrow Java's Flight SQL example) writes differently from ANSI SQL. */
class DerbyDialectTest {
  private static final Dialect DERBY = new DerbyDialect("\"");

  @Test
  void literalsStayWithinDerbysLimits() {
    assertThat(DERBY.literal("back\\slash", DataTypes.StringType).get()).isEqualTo("'back\\slash'");
    assertThat(DERBY.literal("x".repeat(32_672), DataTypes.StringType)).isPresent();
    assertThat(DERBY.literal("x".repeat(32_673), DataTypes.StringType)).isEmpty();
    assertThat(DERBY.literal(Double.MIN_VALUE, DataTypes.DoubleType)).isEmpty();
    assertThat(DERBY.literal(0.0, DataTypes.DoubleType).get()).isEqualTo("0.0E0");
    Decimal big = Decimal.apply(new BigDecimal("-9999999999999999999999999999.9999999999"));
    assertThat(DERBY.literal(big, DataTypes.createDecimalType(38, 10))).isEmpty();
    assertThat(
            DERBY
                .literal(Decimal.apply(new BigDecimal("1.50")), DataTypes.createDecimalType(38, 10))
                .get())
        .isEqualTo("1.50");
  }

  @Test
  void datesAreFunctionsAndJulianDatesStayInSpark() {
    int day = (int) LocalDate.of(2024, 1, 2).toEpochDay();
    assertThat(DERBY.literal(day, DataTypes.DateType).get()).isEqualTo("DATE('2024-01-02')");
    int julian = (int) LocalDate.of(1500, 1, 1).toEpochDay();
    assertThat(DERBY.literal(julian, DataTypes.DateType)).isEmpty();
    assertThat(DERBY.literal(-14_182_939_500_000L, DataTypes.TimestampNTZType).get())
        .isEqualTo("TIMESTAMP('1969-07-20 20:17:40.500000')");
    assertThat(DERBY.literal(0L, DataTypes.TimestampType)).isEmpty();
  }

  @Test
  void rowsAreLimitedWithOffsetAndFetchFirst() {
    assertThat(DERBY.limitOffset(5, 3).get()).isEqualTo("OFFSET 3 ROWS FETCH FIRST 5 ROWS ONLY");
    assertThat(DERBY.limitOffset(5, 0).get()).isEqualTo("FETCH FIRST 5 ROWS ONLY");
    assertThat(DERBY.limitOffset(-1, 3).get()).isEqualTo("OFFSET 3 ROWS");
    assertThat(DERBY.limitOffset(0, 0)).isEmpty();
    assertThat(DERBY.stringMatch("\"c\"", "ENDS_WITH", "it's").get())
        .isEqualTo("(\"c\" LIKE '%it''s' ESCAPE '!')");
  }

  @Test
  void tablesTakeDerbysTypesAndRefuseTheOthers() {
    StructType schema =
        new StructType()
            .add("b", DataTypes.ByteType)
            .add("d", DataTypes.DoubleType)
            .add("s", DataTypes.StringType)
            .add("bin", DataTypes.BinaryType)
            .add("at", DataTypes.TimestampNTZType);
    assertThat(DERBY.createTable(new TableRef(null, "APP", "T"), schema))
        .isEqualTo(
            "CREATE TABLE \"APP\".\"T\" (\"b\" SMALLINT, \"d\" DOUBLE, \"s\" VARCHAR(32672),"
                + " \"bin\" VARCHAR(32672) FOR BIT DATA, \"at\" TIMESTAMP)");
    assertThatThrownBy(() -> DERBY.columnType(DataTypes.createDecimalType(38, 2), "amount"))
        .hasMessageStartingWith(
            "Column 'amount' has Spark type decimal(38,2), for which spark-flightsql knows no"
                + " column type in dialect 'derby'");
    assertThatThrownBy(() -> DERBY.columnType(DataTypes.TimestampType, "at"))
        .hasMessageContaining("dialect 'derby'");
  }

  @Test
  void renamesATableInItsSchema() {
    assertThat(
            DERBY.renameTable(
                new io.flightsql.spark.client.metadata.TableRef(null, "APP", "a"), "b"))
        .contains("RENAME TABLE \"APP\".\"a\" TO \"b\"");
  }
}
