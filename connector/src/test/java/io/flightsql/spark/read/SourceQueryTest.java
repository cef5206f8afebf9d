package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The SQL of a read's source, qualified by options catalog and schema where it must be. */
class SourceQueryTest {
  private static final Supplier<Dialect> ANSI = () -> Dialects.named("ansi", "");

  private static final Supplier<Dialect> NOT_ASKED =
      () -> {
        throw new AssertionError("the dialect is asked for only to qualify a table");
      };

  @Test
  void catalogAndSchemaQualifyAnUnqualifiedTableOnlyWithoutSessionDefaults() {
    FlightSqlReadConfig config =
        FlightSqlReadConfig.from(
            Map.of("uri", "grpc://h:1", "dbtable", "orders", "catalog", "sales", "schema", "q\"1"));
    assertThat(SourceQuery.sql(config, true, NOT_ASKED)).isEqualTo("SELECT * FROM orders");
    assertThat(SourceQuery.sql(config, false, ANSI))
        .isEqualTo("SELECT * FROM \"sales\".\"q\"\"1\".orders");
    assertThat(SourceQuery.sql(config, false, () -> Dialects.named("mysql", "")))
        .isEqualTo("SELECT * FROM `sales`.`q\"1`.orders");
    FlightSqlReadConfig qualified =
        FlightSqlReadConfig.from(
            Map.of("uri", "grpc://h:1", "dbtable", "main.orders", "schema", "other"));
    assertThat(SourceQuery.sql(qualified, false, NOT_ASKED)).isEqualTo("SELECT * FROM main.orders");
    FlightSqlReadConfig query =
        FlightSqlReadConfig.from(Map.of("uri", "grpc://h:1", "query", "SELECT 1", "schema", "s"));
    assertThat(SourceQuery.sql(query, false, NOT_ASKED)).isEqualTo("SELECT 1");
  }
}
