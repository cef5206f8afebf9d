package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.RowValues;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ExplainMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A schema the user gives a read ({@code spark.read.schema(...)}) is matched by name against the
 * embedded DuckDB server's columns, for a {@code dbtable} and a {@code query} alike: other orders
 * and fewer columns read each column's own values; a name the source lacks or a type it cannot be
 * read as fails at load, naming the column.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class GivenSchemaTest {
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).endpoints(1).lineitemRows(10));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void table() {
    duckDb.server().execute("CREATE TABLE ab (a VARCHAR, b VARCHAR, n INTEGER)");
    duckDb.server().execute("INSERT INTO ab VALUES ('a1', 'b1', 1), ('a2', 'b2', 2)");
  }

  private static DataFrameReader reader(String source, String schema) {
    DataFrameReader reader =
        spark.session().read().format("flightsql").option("uri", duckDb.uri()).schema(schema);
    return source.equals("dbtable")
        ? reader.option("dbtable", "ab")
        : reader.option("query", "SELECT a, b, n FROM ab");
  }

  private static List<List<Object>> rows(Dataset<Row> df) {
    return RowValues.fromSpark(df.orderBy("n").collectAsList());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"dbtable", "query"})
  void columnsInAnotherOrderShowTheirOwnValues(String source) {
    Dataset<Row> df = reader(source, "b STRING, n INT, a STRING").load();
    assertThat(df.columns()).containsExactly("b", "n", "a");
    assertThat(df.queryExecution().explainString(ExplainMode.fromString("simple")))
        .contains("SELECT \"b\", \"n\", \"a\" FROM");
    assertThat(rows(df))
        .isEqualTo(List.of(Arrays.asList("b1", 1L, "a1"), Arrays.asList("b2", 2L, "a2")));
    assertThat(RowValues.fromSpark(df.select("a").orderBy("a").collectAsList()))
        .isEqualTo(List.of(List.of("a1"), List.of("a2")));
    assertThat(RowValues.fromSpark(df.filter("b = 'b2'").select("a").collectAsList()))
        .isEqualTo(List.of(List.of("a2")));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"dbtable", "query"})
  void fewerColumnsReadThoseByName(String source) {
    Dataset<Row> df = reader(source, "n INT, b STRING").load();
    assertThat(rows(df)).isEqualTo(List.of(Arrays.asList(1L, "b1"), Arrays.asList(2L, "b2")));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"dbtable", "query"})
  void theSourcesOwnOrderIsReadAsItIs(String source) {
    Dataset<Row> df = reader(source, "a STRING, b STRING, n INT").load();
    assertThat(rows(df))
        .isEqualTo(List.of(Arrays.asList("a1", "b1", 1L), Arrays.asList("a2", "b2", 2L)));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"dbtable", "query"})
  void aNameTheSourceLacksFailsBeforeTheJob(String source) {
    assertThatThrownBy(
            () -> reader(source, "b STRING, c STRING").load().queryExecution().optimizedPlan())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Column 'c' of the schema given to the read of")
        .hasMessageContaining("is not a column of its source")
        .hasMessageContaining("'a' Utf8, 'b' Utf8, 'n' Int(32, true)");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"dbtable", "query"})
  void aTypeTheColumnCannotBeReadAsFailsBeforeTheJob(String source) {
    assertThatThrownBy(
            () -> reader(source, "a STRING, n BIGINT").load().queryExecution().optimizedPlan())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Column 'n' of the schema given to the read of")
        .hasMessageContaining("is bigint, but the server's column is Int(32, true)")
        .hasMessageContaining("which the connector reads as int only");
  }
}
