package io.flightsql.spark.read;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server whose strings compare otherwise than Spark's: the embedded DuckDB server with its
 * default collation set to {@code nocase}, read as a server of unknown collation (option {@code
 * dialect=ansi}, which does not vouch for how strings compare, so the string-order probe decides).
 * The probe finds {@code 'a' = 'A'}, so no string column is compared, ordered or aggregated on the
 * server, and every answer is Spark's, where the server's own would have more rows or another
 * order.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class StringCollationTest {
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb = EmbeddedServerExtension.duckDb(s -> s.port(0));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void tables() {
    duckDb.server().execute("SET GLOBAL default_collation = 'nocase'");
    duckDb
        .server()
        .execute(
            "CREATE TABLE names AS SELECT * FROM (VALUES (1, 'a'), (2, 'A'), (3, 'b'), (4, 'B'),"
                + " (5, NULL)) t(id, s)");
  }

  private static DataFrameReader read() {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dialect", "ansi");
  }

  private static Dataset<Row> names() {
    return read().option("dbtable", "names").load();
  }

  private static List<String> rows(Dataset<Row> df) {
    return df.collectAsList().stream().map(Row::toString).collect(Collectors.toList());
  }

  private static String plan(Dataset<Row> df) {
    return df.queryExecution().executedPlan().toString();
  }

  @Test
  void theServerItselfIgnoresCase() {
    // What a pushed comparison would have returned: the test below could fail.
    Dataset<Row> serverSide =
        read().option("query", "SELECT id FROM names WHERE s = 'a' ORDER BY id").load();
    assertThat(rows(serverSide)).containsExactly("[1]", "[2]");
  }

  @Test
  void equalityOnAStringIsSparks() {
    Dataset<Row> equal = names().filter(col("s").equalTo("a")).select("id");
    assertThat(rows(equal)).containsExactly("[1]");
    assertThat(plan(equal))
        .contains("PushedFilters: [s IS NOT NULL]")
        .doesNotContain("\"s\" = 'a'");
  }

  @Test
  void aRangeOfStringsIsSparks() {
    // Spark orders by bytes: 'A' < 'B' < 'a' < 'b'; ignoring case, 'B' > 'a'.
    Dataset<Row> range = names().filter(col("s").gt("Z")).select("id").orderBy("id");
    assertThat(rows(range)).containsExactly("[1]", "[3]");
    assertThat(plan(range)).doesNotContain("\"s\" >");
  }

  @Test
  void minMaxAndTopNOfStringsAreSparks() {
    Dataset<Row> extremes = names().agg(min("s"), max("s"));
    assertThat(rows(extremes)).containsExactly("[A,b]");
    assertThat(plan(extremes)).doesNotContain("MIN(\"s\")").doesNotContain("MAX(\"s\")");

    Dataset<Row> top = names().filter(col("s").isNotNull()).orderBy(col("s")).limit(2);
    assertThat(rows(top)).containsExactly("[2,A]", "[4,B]");
    assertThat(plan(top)).doesNotContain("ORDER BY \"s\"");
  }

  @Test
  void numbersAreStillComparedOnTheServer() {
    Dataset<Row> numbers = names().filter(col("id").gt(3)).agg(max("id"));
    assertThat(rows(numbers)).containsExactly("[5]");
    assertThat(plan(numbers)).contains("MAX(\"id\")").contains("(\"id\" > 3)");
  }
}
