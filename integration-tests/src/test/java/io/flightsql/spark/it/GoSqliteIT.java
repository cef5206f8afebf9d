package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract against arrow-go's SQLite Flight SQL example, a Go process this project did not
 * write. It announces no schema before a query runs (no GetSchema, no schema in FlightInfo or in
 * prepared statements), so the connector takes it from the head of the stream; SQLite's INTEGER
 * comes back as int64 and DATE as text.
 */
class GoSqliteIT extends FlightSqlContractSuite {
  @RegisterExtension static final GoSqliteServerExtension SERVER = new GoSqliteServerExtension();

  @Override
  protected ServerQuirks startServer() {
    return new SqliteQuirks(SERVER.uri());
  }

  @Test
  void readsTheTableTheExampleStartsWith() {
    Dataset<Row> ints = flightsql().option("dbtable", "intTable").load();

    assertThat(describe(ints.schema()))
        .containsExactly("id: bigint", "keyName: string", "value: bigint", "foreignId: bigint");
    List<List<Object>> rows = values(ints.collectAsList());
    rows.sort(Comparator.comparingLong(row -> (Long) row.get(0)));
    assertThat(rows)
        .containsExactly(
            Arrays.asList(1L, "one", 1L, 1L),
            Arrays.asList(2L, "zero", 0L, 1L),
            Arrays.asList(3L, "negative one", -1L, 1L),
            Arrays.asList(4L, null, null, null));
  }

  /**
   * arrow-go's example sends a column without a declared type (an expression, a bare NULL) as a
   * dense union of int64, float64 and string, since SQLite types each value on its own. Spark has
   * no union type: the connector refuses it naming the option that reads it as text, and with that
   * option plans the column as a string.
   */
  @Test
  void untypedColumnsArriveAsMixedUnionsAndReadAsTextWhenAsked() {
    assertThatThrownBy(() -> flightsql().option("query", "SELECT NULL AS n, 1 AS one").load())
        .hasMessageStartingWith("Column 'n' has Arrow type Union(Dense, [0, 1, 2])")
        .hasMessageContaining("Set option 'mixedUnions' to 'string'");
    // The schema is all this server can give here: reading the NULL makes the example's own union
    // builder panic ("some fields have excessive number of rows"). The hand-built stream tests read
    // mixed-union values as text.
    Dataset<Row> df =
        flightsql()
            .option("query", "SELECT NULL AS n, 1 AS one")
            .option("mixedUnions", "string")
            .load();
    assertThat(describe(df.schema())).containsExactly("n: string", "one: bigint");
  }

  /**
   * This server gives one endpoint per query, so a read is one partition unless the client splits
   * it: split on an integer column into four ranges, or by predicates, it reads what the whole
   * read does, NULLs and values outside the bounds included.
   */
  @Test
  void partitionedReadsEqualTheUnpartitionedRead() {
    quirks.executeUpdate("CREATE TABLE parts_it (id integer, v integer, note text)");
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      rows.add("(" + i + ", " + (i % 11 == 0 ? "NULL" : Integer.toString(i - 50)) + ", 'n" + i + "')");
    }
    quirks.executeUpdate("INSERT INTO parts_it VALUES " + String.join(", ", rows));

    Dataset<Row> whole = flightsql().option("dbtable", "parts_it").load();
    assertThat(whole.rdd().getNumPartitions()).isEqualTo(1);
    List<List<Object>> expected = sortedById(whole);
    assertThat(expected).hasSize(200);

    Dataset<Row> ranges =
        flightsql()
            .option("dbtable", "parts_it")
            .option("partitionColumn", "v")
            .option("lowerBound", "0")
            .option("upperBound", "100")
            .option("numPartitions", "4")
            .load();
    assertThat(ranges.rdd().getNumPartitions()).isEqualTo(4);
    assertThat(sortedById(ranges)).isEqualTo(expected);

    Dataset<Row> predicates =
        flightsql()
            .option("dbtable", "parts_it")
            .option("predicates", "[\"v < 10\", \"v >= 10\", \"v IS NULL\"]")
            .load();
    assertThat(predicates.rdd().getNumPartitions()).isEqualTo(3);
    assertThat(sortedById(predicates)).isEqualTo(expected);
  }

  private static List<List<Object>> sortedById(Dataset<Row> rows) {
    List<List<Object>> out = values(rows.collectAsList());
    out.sort(Comparator.comparingLong(row -> (Long) row.get(0)));
    return out;
  }
}
