package io.flightsql.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.config.ReadWriteOptions;
import org.junit.jupiter.api.Test;

/** Option {@code dialect} names its choices in config, which knows no dialect: they must agree. */
class SqlDialectOptionTest {
  @Test
  void everyNamedDialectExistsAndEveryDialectIsNamed() {
    int named = 0;
    for (String name : ReadWriteOptions.DIALECT.allowedValues()) {
      if (!name.equals(ReadWriteOptions.AUTO_DIALECT)) {
        assertThat(SqlDialect.fromOptionValue(name).optionValue()).isEqualTo(name);
        named++;
      }
    }
    assertThat(named).isEqualTo(SqlDialect.values().length);
  }
}
