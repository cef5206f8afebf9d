package io.flightsql.spark.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.client.metadata.TableRef;
import java.math.BigDecimal;
import java.time.LocalDate;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** What DuckDB writes differently from ANSI SQL. */
class DuckDbDialectTest {
  private static final Dialect DUCKDB = new DuckDbDialect("\"");

  @Test
  void backslashesArePlainAndLongStringsAreWritten() {
    assertThat(DUCKDB.literal("back\\slash", DataTypes.StringType).get())
        .isEqualTo("'back\\slash'");
    assertThat(DUCKDB.literal("x".repeat(100_000), DataTypes.StringType)).isPresent();
  }

  @Test
  void binaryZonedTimestampsAndNullSafeEqualityHaveDuckDbsForms() {
    byte[] bytes = {(byte) 0xDE, (byte) 0xAD, 0x00, 0x27};
    assertThat(DUCKDB.literal(bytes, DataTypes.BinaryType).get()).isEqualTo("from_hex('DEAD0027')");
    assertThat(DUCKDB.literal(-14_182_939_500_000L, DataTypes.TimestampType).get())
        .isEqualTo("TIMESTAMPTZ '1969-07-20 20:17:40.500000+00:00'");
    assertThat(
            DUCKDB.literal((int) LocalDate.of(1500, 1, 1).toEpochDay(), DataTypes.DateType).get())
        .isEqualTo("DATE '1500-01-01'");
    assertThat(DUCKDB.nullSafeEqual("a", "1")).isEqualTo("(a IS NOT DISTINCT FROM 1)");
    Decimal big = Decimal.apply(new BigDecimal("-9999999999999999999999999999.9999999999"));
    assertThat(DUCKDB.literal(big, DataTypes.createDecimalType(38, 10)).get())
        .isEqualTo("(-9999999999999999999999999999.9999999999)");
  }

  @Test
  void tablesTakeTinyintBlobAndNestedTypes() {
    StructType schema =
        new StructType()
            .add("b", DataTypes.ByteType)
            .add("bin", DataTypes.BinaryType)
            .add("tags", DataTypes.createArrayType(DataTypes.StringType))
            .add("m", DataTypes.createMapType(DataTypes.StringType, DataTypes.IntegerType))
            .add("s", new StructType().add("x y", DataTypes.DoubleType));
    assertThat(DUCKDB.createTable(new TableRef(null, null, "t"), schema))
        .isEqualTo(
            "CREATE TABLE \"t\" (\"b\" TINYINT, \"bin\" BLOB, \"tags\" VARCHAR[],"
                + " \"m\" MAP(VARCHAR, INTEGER), \"s\" STRUCT(\"x y\" DOUBLE PRECISION))");
  }

  @Test
  void renamesATableInItsSchema() {
    assertThat(
            DUCKDB.renameTable(
                new io.flightsql.spark.client.metadata.TableRef(null, "main", "a"), "b"))
        .contains("ALTER TABLE \"main\".\"a\" RENAME TO \"b\"");
  }
}
