package io.flightsql.spark.it;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract against Deephaven (pip's {@code deephaven-server}), a Java engine with Calcite SQL:
 * reached with option {@code header.authorization} = {@code Anonymous}, no GetSqlInfo (the
 * connector's probe establishes its quoting), single-use tickets bound to the session that planned
 * them.
 */
class DeephavenIT extends FlightSqlContractSuite
    implements DifferentialFuzzContract,
        OptimizerContract,
        StreamingContract,
        ReadCallsContract,
        AggregateContract {
  @RegisterExtension static final DeephavenServerExtension SERVER = new DeephavenServerExtension();

  /**
   * GetSchema answers without running the query, which Deephaven runs in GetFlightInfo
   * (PollFlightInfo is unimplemented, asked once).
   */
  @Override
  public List<String> repeatedReadCalls() {
    return List.of(
        "GetSchema(CommandStatementQuery)", "GetFlightInfo(CommandStatementQuery)", "DoGet");
  }

  @Override
  public String fuzzDialect() {
    return "deephaven";
  }

  @Override
  protected ServerQuirks startServer() {
    return new DeephavenQuirks(SERVER.uri());
  }

  private static List<String> rows(Dataset<Row> df) {
    return df.collectAsList().stream().map(Row::toString).sorted().collect(Collectors.toList());
  }

  /**
   * Deephaven answers {@code SELECT id, name ... ORDER BY score} with the ORDER BY column too: a
   * server quirk (docs/compatibility.md), shown here as users see it.
   */
  @Test
  @Override
  void returnsTheRowsAServerFilteredAndOrdered() {
    Dataset<Row> positive =
        flightsql()
            .option(
                "query", "SELECT id, name FROM " + TABLE + " WHERE score > 0 ORDER BY score DESC")
            .load();
    assertThat(positive.columns()).containsExactly("id", "name", "score");
    assertThat(positive.collectAsList().stream().map(Row::toString))
        .containsExactly("[5,it's,1.0E10]", "[1,alice,1.5]");
  }

  @Test
  void aStringFilterAProjectionAndACountOnATableReadExactly() {
    Dataset<Row> table = flightsql().option("dbtable", "deephaven_strings").load();
    assertThat(rows(table.filter(col("s").equalTo("42")))).containsExactly("[2,42]");
    assertThat(rows(table.select("id"))).containsExactly("[1]", "[2]", "[3]");
    assertThat(table.count()).isEqualTo(3);
  }
}
