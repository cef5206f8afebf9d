package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code data(...)}: a script, or a directory of Parquet, CSV and SQL files. */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class DataLoaderTest {

  @Test
  void directoryFilesBecomeTablesBeforeItsScriptsRun(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("cities.csv"), "id,name\n1,Zürich\n2,Lyon\n");
    try (DuckDbFlightSqlServer maker = DuckDbFlightSqlServer.builder().lineitemRows(0).start()) {
      maker.execute(
          "COPY (SELECT range AS n FROM range(5)) TO "
              + QuerySql.quoteLiteral(dir.resolve("numbers.parquet").toString())
              + " (FORMAT parquet)");
    }
    Files.writeString(
        dir.resolve("b_view.sql"), "CREATE VIEW big_numbers AS SELECT * FROM numbers WHERE n > 2;");
    Files.writeString(dir.resolve("a_table.sql"), "CREATE TABLE notes AS SELECT 'hi' AS note;\n");
    Files.writeString(dir.resolve("README.txt"), "ignored");

    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().lineitemRows(0).data(dir).start();
        TestClient client = new TestClient(server)) {
      assertThat(client.rows(client.sql.execute("SELECT * FROM cities ORDER BY id")))
          .containsExactly(List.of("1", "Zürich"), List.of("2", "Lyon"));
      assertThat(client.rows(client.sql.execute("SELECT * FROM big_numbers")))
          .containsExactly(List.of("3"), List.of("4"));
      assertThat(client.rows(client.sql.execute("SELECT * FROM notes")))
          .containsExactly(List.of("hi"));
    }
  }

  @Test
  void aScriptRunsOnItsOwn(@TempDir Path dir) throws Exception {
    Path script = dir.resolve("setup.sql");
    Files.writeString(script, "CREATE TABLE t (x INTEGER);\nINSERT INTO t VALUES (1), (2);\n");

    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().lineitemRows(0).data(script).start();
        TestClient client = new TestClient(server)) {
      assertThat(client.rows(client.sql.execute("SELECT sum(x) FROM t")))
          .containsExactly(List.of("3"));
    }
  }

  @Test
  void badDataFailsTheStartWithTheReason(@TempDir Path dir) throws Exception {
    Path script = dir.resolve("broken.sql");
    Files.writeString(script, "CREATE TABLE oops AS SELECT * FROM missing_table;");

    assertThatThrownBy(() -> DuckDbFlightSqlServer.builder().lineitemRows(0).data(script).start())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("broken.sql failed")
        .hasMessageContaining("missing_table");
    assertThatThrownBy(
            () -> DuckDbFlightSqlServer.builder().data(dir.resolve("absent.sql")).start())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("no such file");
    Path text = Files.writeString(dir.resolve("data.txt"), "x");
    assertThatThrownBy(() -> DuckDbFlightSqlServer.builder().lineitemRows(0).data(text).start())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("expected a .sql script or a directory");
  }
}
