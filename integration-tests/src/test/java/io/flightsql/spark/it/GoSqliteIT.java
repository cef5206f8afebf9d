package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

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
}
