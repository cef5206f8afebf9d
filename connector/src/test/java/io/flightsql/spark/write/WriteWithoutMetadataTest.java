package io.flightsql.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Writes to a server that lists no tables and says nothing of itself (GetTables and GetSqlInfo
 * answer UNIMPLEMENTED, as on Sail and Deephaven): whether the table exists, and its columns, come
 * from {@code SELECT * FROM t WHERE 1 = 0}, as in Spark's JDBC source, and every save mode does
 * what it says.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class WriteWithoutMetadataTest {
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(
          server -> server.port(0).lineitemRows(0).without("GetTables", "GetSqlInfo"));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static Dataset<Row> rows(int from, int to) {
    return spark
        .session()
        .sql(
            "SELECT CAST(id AS INT) AS id, CONCAT('n', id) AS name FROM range("
                + from
                + ", "
                + to
                + ")");
  }

  private static void write(Dataset<Row> df, String table, String mode) {
    df.write()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", table)
        .mode(mode)
        .save();
  }

  private static List<String> readBack(String table) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", table)
        .load()
        .collectAsList()
        .stream()
        .map(Row::toString)
        .sorted()
        .collect(Collectors.toList());
  }

  @Test
  void everySaveModeFindsTheTableWithAQueryThatReturnsNoRow() {
    write(rows(0, 2), "no_meta", "errorifexists");
    assertThat(readBack("no_meta")).containsExactly("[0,n0]", "[1,n1]");

    write(rows(2, 3), "no_meta", "append");
    assertThat(readBack("no_meta")).containsExactly("[0,n0]", "[1,n1]", "[2,n2]");

    write(rows(7, 8), "no_meta", "ignore");
    assertThat(readBack("no_meta")).hasSize(3);

    assertThatThrownBy(() -> write(rows(7, 8), "no_meta", "errorifexists"))
        .hasMessageContaining("already exists");

    write(rows(5, 6), "no_meta", "overwrite");
    assertThat(readBack("no_meta")).containsExactly("[5,n5]");
  }

  @Test
  void anAppendMatchesTheDataFramesColumnsToTheTablesByName() {
    duckDb.server().execute("CREATE TABLE no_meta_named (name VARCHAR, id INTEGER)");
    write(rows(1, 3), "no_meta_named", "append");
    assertThat(readBack("no_meta_named")).containsExactly("[n1,1]", "[n2,2]");
  }
}
