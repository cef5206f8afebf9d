package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialects;
import java.util.Map;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Partition conditions in the read's dialect, without a server. */
class ClientPartitionsTest {
  private static final StructType SCHEMA =
      new StructType().add("Day", DataTypes.DateType).add("n", DataTypes.LongType);

  private static FlightSqlReadConfig byColumn(String column, String lower, String upper) {
    return FlightSqlReadConfig.from(
        Map.of(
            "uri",
            "grpc://h:1",
            "dbtable",
            "t",
            "partitionColumn",
            column,
            "lowerBound",
            lower,
            "upperBound",
            upper,
            "numPartitions",
            "2"));
  }

  @Test
  void boundsAndTheColumnAreWrittenInTheReadsDialect() {
    FlightSqlReadConfig config = byColumn("day", "2024-01-01", "2024-01-11");
    assertThat(ClientPartitions.conditions(config, SCHEMA, Dialects.named("derby", "")))
        .containsExactly(
            "\"Day\" < DATE('2024-01-06') OR \"Day\" IS NULL", "\"Day\" >= DATE('2024-01-06')");
    assertThat(ClientPartitions.conditions(config, SCHEMA, Dialects.named("mysql", "")))
        .containsExactly(
            "`Day` < DATE '2024-01-06' OR `Day` IS NULL", "`Day` >= DATE '2024-01-06'");
    assertThat(
            ClientPartitions.conditions(
                byColumn("`n`", "0", "10"), SCHEMA, Dialects.named("mysql", "")))
        .containsExactly("`n` < 5 OR `n` IS NULL", "`n` >= 5");
  }

  @Test
  void aBoundTheDialectCannotWriteIsAnErrorNamingTheWayOut() {
    FlightSqlReadConfig config = byColumn("Day", "2024-01-01", "2024-01-11");
    assertThatThrownBy(
            () -> ClientPartitions.conditions(config, SCHEMA, Dialects.named("sqlite", "")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid value 'Day' for option 'partitionColumn'")
        .hasMessageContaining("dialect 'sqlite' cannot write a bound of the date column 'Day'")
        .hasMessageEndingWith(
            "partition by a numeric column, or split the read with 'predicates')");
  }
}
