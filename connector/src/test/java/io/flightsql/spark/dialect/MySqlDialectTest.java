package io.flightsql.spark.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.metadata.TableRef;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** What MySQL's syntax (Apache Doris, StarRocks) writes differently from ANSI SQL. */
class MySqlDialectTest {
  private static final Dialect MYSQL = new MySqlDialect(null);

  @Test
  void identifiersTakeBackticksUnlessTheServerSaysOtherwise() {
    assertThat(MYSQL.quote()).isEqualTo("`");
    assertThat(MYSQL.identifier("a`b\"c").get()).isEqualTo("`a``b\"c`");
    assertThat(new MySqlDialect("\"").identifier("a").get()).isEqualTo("\"a\"");
  }

  @Test
  void backslashesFloatsAndZonedTimestampsStayInSpark() {
    assertThat(MYSQL.literal("back\\slash", DataTypes.StringType)).isEmpty();
    assertThat(MYSQL.stringMatch("`c`", "CONTAINS", "a\\b")).isEmpty();
    assertThat(MYSQL.literal(0.5f, DataTypes.FloatType)).isEmpty();
    assertThat(MYSQL.literal(-14_182_939_500_000L, DataTypes.TimestampType)).isEmpty();
    assertThat(MYSQL.literal(0.5, DataTypes.DoubleType).get()).isEqualTo("0.5E0");
  }

  @Test
  void nullSafeEqualityOffsetsAndOrdering() {
    assertThat(MYSQL.nullSafeEqual("a", "1")).isEqualTo("(a <=> 1)");
    assertThat(MYSQL.limitOffset(-1, 3).get()).isEqualTo("LIMIT 18446744073709551615 OFFSET 3");
    assertThat(MYSQL.limitOffset(2, 3).get()).isEqualTo("LIMIT 2 OFFSET 3");
    assertThat(MYSQL.orderItem("a", true, true).get()).isEqualTo("a ASC");
    assertThat(MYSQL.orderItem("a", false, false).get()).isEqualTo("a DESC");
    assertThat(MYSQL.orderItem("a", true, false)).isEmpty();
  }

  @Test
  void tablesTakeTextBlobAndDatetimeTypes() {
    StructType schema =
        new StructType()
            .add("s", DataTypes.StringType)
            .add("b", DataTypes.BinaryType)
            .add("at", DataTypes.TimestampNTZType);
    assertThat(MYSQL.createTable(new TableRef(null, "db", "t"), schema))
        .isEqualTo("CREATE TABLE `db`.`t` (`s` LONGTEXT, `b` LONGBLOB, `at` DATETIME(6))");
    assertThatThrownBy(() -> MYSQL.columnType(DataTypes.TimestampType, "ts"))
        .hasMessageContaining("dialect 'mysql'");
  }

  @Test
  void renamesATableInItsSchema() {
    assertThat(
            MYSQL.renameTable(
                new io.flightsql.spark.client.metadata.TableRef(null, "db", "a"), "b"))
        .contains("RENAME TABLE `db`.`a` TO `db`.`b`");
  }
}
