package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Planning a write changes nothing on the server: with option {@code atomic} {@code false}, whose
 * tasks write into the table directly, the table is emptied, dropped or created only when the job
 * starts, so an EXPLAIN of an overwrite leaves the rows; and a job that reads the table it would
 * empty first is refused before anything changes. On the embedded DuckDB server, the table's rows
 * read back with the server's own JDBC connection.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class WritePlanningTest {
  private static final String DIRECT = "direct.memory.main.";

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).lineitemRows(0));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void catalogs() {
    SparkSession session = spark.session();
    session.conf().set("spark.sql.catalog.direct", "io.flightsql.spark.FlightSqlCatalog");
    session.conf().set("spark.sql.catalog.direct.uri", duckDb.uri());
    session.conf().set("spark.sql.catalog.direct.atomic", "false");
    session.conf().set("spark.sql.catalog.staged", "io.flightsql.spark.FlightSqlCatalog");
    session.conf().set("spark.sql.catalog.staged.uri", duckDb.uri());
  }

  private static void table(String name, String values) {
    duckDb.server().execute("CREATE OR REPLACE TABLE " + name + " (id INTEGER)");
    duckDb.server().execute("INSERT INTO " + name + " VALUES " + values);
  }

  /** The table's ids in order, as the server holds them. */
  private static List<Integer> ids(String table) throws Exception {
    List<Integer> out = new ArrayList<>();
    try (Connection c = duckDb.server().newConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id FROM " + table + " ORDER BY id")) {
      while (rs.next()) {
        out.add(rs.getInt(1));
      }
    }
    return out;
  }

  @Test
  void explainOfAnOverwriteLeavesTheRows() throws Exception {
    table("ex", "(1), (2)");
    for (String explain : new String[] {"EXPLAIN", "EXPLAIN EXTENDED", "EXPLAIN FORMATTED"}) {
      List<Row> plan =
          spark
              .session()
              .sql(explain + " INSERT OVERWRITE " + DIRECT + "ex SELECT 9")
              .collectAsList();
      assertThat(plan.get(0).getString(0)).contains("OverwriteByExpression");
    }
    assertThat(ids("ex")).containsExactly(1, 2);
  }

  @Test
  void anOverwriteWithoutStagingStillReplacesTheRows() throws Exception {
    table("ow", "(1), (2)");
    spark.session().sql("INSERT OVERWRITE " + DIRECT + "ow SELECT 9");
    assertThat(ids("ow")).containsExactly(9);

    table("owdf", "(1), (2)");
    spark
        .session()
        .sql("SELECT 7 AS id")
        .write()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", "owdf")
        .option("atomic", "false")
        .option("truncate", "true")
        .mode(SaveMode.Overwrite)
        .save();
    assertThat(ids("owdf")).containsExactly(7);
  }

  @Test
  void anOverwriteWithoutStagingOfTheTableItReadsIsRefusedAndKeepsTheRows() throws Exception {
    table("so", "(1), (2)");
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .sql("INSERT OVERWRITE " + DIRECT + "so SELECT id + 10 FROM " + DIRECT + "so")
                    .collect())
        .hasMessageContaining("reads that table")
        .hasMessageContaining("Nothing was changed")
        .hasMessageContaining("Set option 'atomic' to 'auto'");
    assertThat(ids("so")).containsExactly(1, 2);

    Dataset<Row> source =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", duckDb.uri())
            .option("dbtable", "so")
            .load();
    for (String truncate : new String[] {"true", "false"}) {
      assertThatThrownBy(
              () ->
                  source
                      .selectExpr("id + 10 AS id")
                      .write()
                      .format("flightsql")
                      .option("uri", duckDb.uri())
                      .option("dbtable", "so")
                      .option("atomic", "false")
                      .option("truncate", truncate)
                      .mode(SaveMode.Overwrite)
                      .save())
          .hasMessageContaining("option 'atomic' is 'false'")
          .hasMessageContaining(truncate.equals("true") ? "delete its rows" : "drop it")
          .hasMessageContaining("Nothing was changed");
      assertThat(ids("so")).containsExactly(1, 2);
    }

    // Staged (the default), the old rows go only when the job commits, after its tasks read them.
    spark
        .session()
        .sql("INSERT OVERWRITE staged.memory.main.so SELECT id + 10 FROM staged.memory.main.so");
    assertThat(ids("so")).containsExactly(11, 12);
  }
}
