package io.flightsql.spark.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.metadata.Capabilities;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.config.ReadWriteOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one rule that chooses a dialect for reads, writes and the catalog. */
class DialectsTest {
  @Test
  void theServersNameChoosesThenItsVersionThenAnsi() {
    assertThat(Dialects.detect("db_name", "sqlite 3", "")).isInstanceOf(SqliteDialect.class);
    assertThat(Dialects.detect("db_name", "", "")).isInstanceOf(AnsiDialect.class);
    assertThat(Dialects.detect("Apache Doris", "", "")).isInstanceOf(MySqlDialect.class);
    assertThat(Dialects.detect("StarRocks", "3.2", "")).isInstanceOf(MySqlDialect.class);
    assertThat(Dialects.detect("spark-flightsql DuckDB server", "v1.1", "\""))
        .isInstanceOf(DuckDbDialect.class);
    assertThat(Dialects.detect("Apache Derby", "", "")).isInstanceOf(DerbyDialect.class);
    assertThat(Dialects.detect("Dremio", "25.0", "")).isInstanceOf(AnsiDialect.class);
    assertThat(Dialects.detect(null, null, null)).isInstanceOf(AnsiDialect.class);
  }

  /** What the resolution established, and how, for each way a server can be known. */
  @Test
  void resolutionSaysHowTheQuotingWasEstablished() {
    ResolvedDialect named =
        Dialects.resolve(Optional.of("mysql"), Capabilities.said("Dremio", "25.0", "\""));
    assertThat(named.dialect()).isInstanceOf(MySqlDialect.class);
    assertThat(named.dialect().quote()).isEqualTo("\"");
    assertThat(named.quoting()).isEqualTo(ResolvedDialect.Quoting.NAMED_BY_USER);
    assertThat(named.sqlGuessed()).isFalse();

    ResolvedDialect byName =
        Dialects.resolve(Optional.empty(), Capabilities.said("db_name", "sqlite 3", ""));
    assertThat(byName.dialect()).isInstanceOf(SqliteDialect.class);
    assertThat(byName.quoting()).isEqualTo(ResolvedDialect.Quoting.SERVER_NAME);
    assertThat(byName.quotingKnown()).isTrue();
    assertThat(byName.sqlGuessed()).isFalse();

    ResolvedDialect sqlInfo =
        Dialects.resolve(Optional.empty(), Capabilities.said("Dremio", "25.0", "`"));
    assertThat(sqlInfo.dialect()).isInstanceOf(AnsiDialect.class);
    assertThat(sqlInfo.dialect().quote()).isEqualTo("`");
    assertThat(sqlInfo.quoting()).isEqualTo(ResolvedDialect.Quoting.SQL_INFO);
    assertThat(sqlInfo.sqlGuessed()).isTrue();

    ResolvedDialect probedSpark =
        Dialects.resolve(Optional.empty(), Capabilities.probed("`", true));
    assertThat(probedSpark.dialect()).isInstanceOf(SparkDialect.class);
    assertThat(probedSpark.quoting()).isEqualTo(ResolvedDialect.Quoting.PROBE);
    assertThat(probedSpark.sqlGuessed()).isTrue();
    assertThat(probedSpark)
        .hasToString(
            "spark (identifiers quoted with `, established by a probe query; SQL guessed, each"
                + " pushed step checked by the server)");

    ResolvedDialect unknown = Dialects.resolve(Optional.empty(), Capabilities.probed("", false));
    assertThat(unknown.dialect()).isInstanceOf(AnsiDialect.class);
    assertThat(unknown.quoting()).isEqualTo(ResolvedDialect.Quoting.UNKNOWN);
    assertThat(unknown.quotingKnown()).isFalse();
    assertThat(unknown.sqlGuessed()).isTrue();
    assertThat(unknown.toString()).contains("a guess: nothing naming a column is pushed");
  }

  @Test
  void theServersQuoteWinsOverTheDialectsOwn() {
    assertThat(Dialects.detect("StarRocks", "", "").quote()).isEqualTo("`");
    assertThat(Dialects.detect("StarRocks", "", "\"").quote()).isEqualTo("\"");
    assertThat(Dialects.named("ansi", "`").identifier("x`").get()).isEqualTo("`x```");
    assertThat(Dialects.named("duckdb", null).quote()).isEqualTo("\"");
  }

  @Test
  void anOptionNamesADialectInAnyCase() {
    assertThat(Dialects.named("SQLite", "")).isInstanceOf(SqliteDialect.class);
    assertThat(Dialects.named("mysql", "")).isEqualTo(Dialects.named("MySQL", null));
    assertThat(Dialects.names())
        .containsExactly("ansi", "duckdb", "sqlite", "derby", "mysql", "spark");
    assertThatThrownBy(() -> Dialects.named("oracle", ""))
        .hasMessage(
            "Invalid value 'oracle' for option 'dialect': expected auto or one of"
                + " [ansi, duckdb, sqlite, derby, mysql, spark]");
  }

  /** Option {@code dialect} is read in config, which cannot see this package: the same names. */
  @Test
  void optionDialectTakesTheNameOfEveryDialectAndNoOther() {
    for (String name : Dialects.names()) {
      Map<String, String> options =
          Map.of("uri", "grpc://h:1", "dbtable", "t", "dialect", name.toUpperCase(Locale.ROOT));
      assertThat(FlightSqlWriteConfig.from(options).dialect()).contains(name);
      assertThat(FlightSqlReadConfig.from(options).dialect()).contains(name);
    }
    assertThat(
            FlightSqlReadConfig.from(Map.of("uri", "grpc://h:1", "dbtable", "t", "dialect", "auto"))
                .dialect())
        .isEmpty();
    assertThatThrownBy(
            () ->
                FlightSqlReadConfig.from(
                    Map.of("uri", "grpc://h:1", "dbtable", "t", "dialect", "oracle")))
        .hasMessageStartingWith("Invalid value 'oracle' for option 'dialect'");
    List<String> allowed = new ArrayList<>(List.of(ReadWriteOptions.AUTO_DIALECT));
    allowed.addAll(Dialects.names());
    assertThat(ReadWriteOptions.DIALECT.allowedValues()).containsExactlyElementsOf(allowed);
  }

  @Test
  void eachDialectIsNamedByItsOptionValueAndEqualByQuote() {
    for (String name : Dialects.names()) {
      Dialect dialect = Dialects.named(name, "");
      assertThat(dialect.name()).isEqualTo(name);
      assertThat(dialect.toString()).startsWith(name + " (identifiers quoted with ");
    }
    assertThat(Dialects.named("ansi", "`")).isNotEqualTo(Dialects.named("ansi", "\""));
    assertThat(Dialects.named("ansi", "\"")).isNotEqualTo(Dialects.named("derby", "\""));
  }
}
