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
 * The contract against Sail (pip's {@code pysail}), a Rust/DataFusion server that speaks Spark SQL:
 * in its dialect {@code "s"} is a string, so a connector that assumed ANSI quoting would push
 * {@code WHERE "s" = '42'}, compare two constants, and silently return no rows. It answers no
 * GetSqlInfo; the connector's probe finds Spark SQL and pushes with backticks.
 */
class SailIT extends FlightSqlContractSuite
    implements DifferentialFuzzContract,
        OptimizerContract,
        StreamingContract,
        ReadCallsContract,
        AggregateContract {
  @RegisterExtension static final SailServerExtension SERVER = new SailServerExtension();

  /**
   * The query runs in GetFlightInfo, whose FlightInfo carries the schema: the schema inference runs
   * it, and the read runs it again for the rows of its own action.
   */
  @Override
  public List<String> repeatedReadCalls() {
    return List.of(
        "GetFlightInfo(CommandStatementQuery)", "GetFlightInfo(CommandStatementQuery)", "DoGet");
  }

  @Override
  public String fuzzDialect() {
    return "sail";
  }

  @Override
  protected ServerQuirks startServer() {
    SailQuirks quirks = new SailQuirks(SERVER.uri());
    quirks.executeUpdate(
        "CREATE TABLE sail_strings USING parquet AS SELECT CAST(id AS BIGINT) AS id,"
            + " CAST(s AS STRING) AS s FROM VALUES (1, '41'), (2, '42'), (3, '43') AS v(id, s)");
    return quirks;
  }

  private static List<String> rows(Dataset<Row> df) {
    return df.collectAsList().stream().map(Row::toString).sorted().collect(Collectors.toList());
  }

  /** The reads that returned nothing, or failed, when the connector assumed ANSI quoting. */
  @Test
  void aStringFilterAProjectionAndACountOnATableReadExactly() {
    Dataset<Row> table = flightsql().option("dbtable", "sail_strings").load();
    Dataset<Row> filtered = table.filter(col("s").equalTo("42"));
    assertThat(rows(filtered)).containsExactly("[2,42]");
    assertThat(filtered.queryExecution().executedPlan().toString())
        .contains("Dialect: spark")
        .contains("WHERE (`s` = '42')");
    assertThat(rows(table.select("id"))).containsExactly("[1]", "[2]", "[3]");
    assertThat(table.count()).isEqualTo(3);
  }

  @Test
  void aQueryWithAPushedFilterAggregateAndTopNEqualsItsUnpushedAnswer() {
    String query = "SELECT id, s FROM sail_strings";
    Dataset<Row> pushed = flightsql().option("query", query).load();
    Dataset<Row> unpushed =
        flightsql()
            .option("query", query)
            .option("pushDownPredicate", "false")
            .option("pushDownAggregate", "false")
            .option("pushDownTopN", "false")
            .option("pushDownLimit", "false")
            .option("pushDownOffset", "false")
            .load();
    pushed.createOrReplaceTempView("sail_pushed");
    unpushed.createOrReplaceTempView("sail_unpushed");
    for (String sql :
        List.of(
            "SELECT id FROM %s WHERE s = '42'",
            "SELECT count(*), max(id), min(s) FROM %s WHERE id > 1",
            "SELECT id, s FROM %s ORDER BY id DESC LIMIT 2")) {
      assertThat(rows(spark().sql(String.format(sql, "sail_pushed"))))
          .as(sql)
          .isEqualTo(rows(spark().sql(String.format(sql, "sail_unpushed"))))
          .isNotEmpty();
    }
    assertThat(
            spark()
                .sql("SELECT id FROM sail_pushed WHERE s = '42'")
                .queryExecution()
                .executedPlan()
                .toString())
        .contains("PushedFilters: [");
  }
}
