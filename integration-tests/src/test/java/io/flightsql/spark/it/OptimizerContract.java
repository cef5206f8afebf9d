package io.flightsql.spark.it;

import static org.apache.spark.sql.functions.broadcast;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.ExplainMode;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SparkPlanGraphNode;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What Spark's optimizer gets from a server, and what it must never change: joins of the contract
 * table with a second one ({@link #VISITS}: duplicate, NULL and unmatched keys, a quote), inner,
 * left and right, with filters on both sides and a self-join, pushed into the server on Spark 4.1
 * where the dialect can write them and always giving Spark's own rows; a star join whose fact read
 * Spark filters at run time by the dimension's keys, receiving only their rows where the dialect
 * compares the key as Spark does, with Spark's own answer; and statistics, from the server's
 * FlightInfo or from a bounded count. Mixed into a {@link FlightSqlContractSuite}.
 */
interface OptimizerContract {
  String VISITS = "contract_visits";

  /** Rows of {@link #VISITS} in {@link ContractColumn} order; names join the contract table's. */
  List<List<Object>> VISIT_ROWS =
      List.of(
          Arrays.asList(10L, "alice", 2.0, LocalDateTime.of(2024, 1, 2, 3, 4, 5)),
          Arrays.asList(11L, "alice", null, null),
          Arrays.asList(12L, null, 3.0, LocalDateTime.of(2001, 1, 1, 0, 0, 0)),
          Arrays.asList(13L, "it's", -2.25, LocalDateTime.of(2010, 5, 5, 5, 5, 5)),
          Arrays.asList(14L, "nobody", 5.0, null),
          Arrays.asList(15L, "bob", 1.5, LocalDateTime.of(1999, 12, 31, 23, 59, 59)));

  String ROWS_RECEIVED = "rows received from the Flight SQL server";
  String JOIN_PUSHDOWN = "spark.sql.optimizer.datasourceV2JoinPushdown";

  ServerQuirks quirks();

  SparkSession spark();

  /** The servers (URIs) on which this JVM created {@link #VISITS}. */
  final class Created {
    static final Set<String> VISITS = ConcurrentHashMap.newKeySet();

    private Created() {}
  }

  private DataFrameReader read(String table) {
    return spark()
        .read()
        .format("flightsql")
        .option("uri", quirks().uri())
        .options(quirks().options())
        .option("dbtable", table);
  }

  /** Creates {@link #VISITS} once per server, and views of both tables, pushed and not. */
  private void views() {
    if (Created.VISITS.add(quirks().uri())) {
      List<List<String>> literals = new ArrayList<>();
      for (List<Object> row : VISIT_ROWS) {
        List<String> values = new ArrayList<>();
        for (ContractColumn column : ContractColumn.values()) {
          values.add(quirks().literal(column, row.get(column.ordinal())));
        }
        literals.add(values);
      }
      quirks().createTable(VISITS, literals);
    }
    read(FlightSqlContractSuite.TABLE).load().createOrReplaceTempView("p");
    read(VISITS).load().createOrReplaceTempView("v");
    read(FlightSqlContractSuite.TABLE)
        .option("pushDownJoin", "false")
        .load()
        .createOrReplaceTempView("p_off");
    read(VISITS).option("pushDownJoin", "false").load().createOrReplaceTempView("v_off");
  }

  private static List<String> sortedRows(Dataset<Row> df) {
    List<String> rows = new ArrayList<>();
    df.collectAsList().forEach(r -> rows.add(r.toString()));
    rows.sort(null);
    return rows;
  }

  private static String plan(Dataset<Row> df, String mode) {
    return df.queryExecution().explainString(ExplainMode.fromString(mode));
  }

  /**
   * Joins of both tables on the server (with Spark 4.1's join pushdown on) give the rows of the
   * same joins done by Spark; the first is pushed wherever the server's dialect compares names as
   * Spark does.
   */
  @Test
  default void joinsGiveSparksOwnRowsAndArePushedWhereTheDialectCanJoin() {
    views();
    // %1$s is the contract table, %2$s the visits: read as usual, or without join pushdown.
    String[] queries = {
      "SELECT p.id, v.id FROM %1$s p JOIN %2$s v ON p.name = v.name",
      "SELECT p.id, v.id, v.score FROM %1$s p LEFT JOIN %2$s v ON p.name = v.name",
      "SELECT p.name, v.name, v.id FROM %1$s p RIGHT JOIN %2$s v ON p.name = v.name",
      "SELECT p.id, v.id FROM (SELECT * FROM %1$s WHERE id > 1) p"
          + " JOIN (SELECT * FROM %2$s WHERE score IS NOT NULL) v ON p.name = v.name",
      "SELECT p.id, v.id FROM %1$s p LEFT JOIN %2$s v ON p.name = v.name AND p.id < v.id",
      "SELECT p.id, v.id FROM %1$s p JOIN %2$s v ON p.score = v.score",
      "SELECT * FROM %1$s a JOIN %1$s b ON a.name = b.name",
      "SELECT p.id, count(*) FROM %1$s p JOIN %2$s v ON p.name = v.name GROUP BY p.id",
    };
    spark().conf().set(JOIN_PUSHDOWN, "true");
    try {
      for (String sql : queries) {
        Dataset<Row> pushed = spark().sql(String.format(sql, "p", "v"));
        Dataset<Row> own = spark().sql(String.format(sql, "p_off", "v_off"));
        assertThat(plan(own, "simple")).as(sql).doesNotContain("PushedJoin");
        assertThat(sortedRows(pushed))
            .as("%s on %s", sql, quirks().name())
            .isEqualTo(sortedRows(own));
      }
      String first = plan(spark().sql(String.format(queries[0], "p", "v")), "simple");
      if (quirks().pushesJoins()) {
        assertThat(first)
            .as(quirks().name())
            .contains("PushedJoin: [")
            .doesNotContain("Join Inner");
      } else {
        assertThat(first).as(quirks().name()).doesNotContain("PushedJoin");
      }
    } finally {
      spark().conf().unset(JOIN_PUSHDOWN);
    }
  }

  /**
   * A star join: the dimension (the contract table, filtered on another column than the key, its
   * filter kept in Spark's plan) broadcast, the fact table ({@link #VISITS}) filtered at run time
   * by the dimension's names. The fact read receives only the rows of those names wherever the
   * server compares names as Spark does, and the answer is Spark's own.
   */
  @Test
  default void aStarJoinReadsOnlyTheFactRowsOfTheDimensionsKeys() throws Exception {
    views();
    String id = quirks().reportedName("id");
    String name = quirks().reportedName("name");
    Dataset<Row> dimension =
        read(FlightSqlContractSuite.TABLE)
            .option("keepFiltersInSpark", "true")
            .load()
            .where(id + " IN (1, 5)")
            .select(name);
    Dataset<Row> fact = read(VISITS).load();
    Dataset<Row> star =
        fact.join(broadcast(dimension), fact.col(name).equalTo(dimension.col(name)))
            .select(fact.col(id));
    Dataset<Row> whole = read(VISITS).option("pushDownRuntimeFilter", "false").load();
    Dataset<Row> unfiltered =
        whole
            .join(broadcast(dimension), whole.col(name).equalTo(dimension.col(name)))
            .select(whole.col(id));
    spark().conf().set(JOIN_PUSHDOWN, "false");
    try {
      List<String> rows = sortedRows(star);
      long received = factRowsReceived();
      assertThat(rows).as(quirks().name()).isEqualTo(sortedRows(unfiltered)).hasSize(3);
      assertThat(received)
          .as("rows the fact read received from %s", quirks().name())
          .isEqualTo(quirks().filtersAtRunTime() ? 3 : VISIT_ROWS.size());
    } finally {
      spark().conf().unset(JOIN_PUSHDOWN);
    }
  }

  /** The rows received by the last job's scan of {@link #VISITS}, as the SQL tab shows them. */
  private long factRowsReceived() throws Exception {
    spark().sparkContext().listenerBus().waitUntilEmpty();
    SQLAppStatusStore store = spark().sharedState().statusStore();
    long latest = -1;
    Map<String, String> byNode = new HashMap<>();
    for (SQLExecutionUIData execution : CollectionConverters.asJava(store.executionsList())) {
      if (execution.executionId() < latest) {
        continue;
      }
      latest = execution.executionId();
      byNode.clear();
      for (SparkPlanGraphNode node :
          CollectionConverters.asJava(store.planGraph(latest).allNodes())) {
        for (var metric : CollectionConverters.asJava(node.metrics())) {
          if (metric.name().equals(ROWS_RECEIVED)) {
            byNode.put(
                node.desc(),
                store.executionMetrics(latest).get(metric.accumulatorId()).getOrElse(() -> "0"));
          }
        }
      }
    }
    return byNode.entrySet().stream()
        .filter(e -> e.getKey().contains(VISITS))
        .mapToLong(e -> Long.parseLong(e.getValue().replaceAll("[^0-9]", "")))
        .sum();
  }

  /**
   * EXPLAIN COST shows the rows a server gives with its FlightInfo, and, with {@code
   * statistics=probe}, the rows a bounded count found on any server whose dialect is known; {@code
   * statistics=none} shows none. The rows read are the same each way.
   */
  @Test
  default void statisticsComeFromTheServerOrABoundedCount() {
    views();
    Dataset<Row> given = read(FlightSqlContractSuite.TABLE).load();
    Dataset<Row> probed = read(FlightSqlContractSuite.TABLE).option("statistics", "probe").load();
    Dataset<Row> none = read(FlightSqlContractSuite.TABLE).option("statistics", "none").load();
    if (quirks().rowCountsInFlightInfo()) {
      assertThat(plan(given, "cost")).as(quirks().name()).contains("rowCount=5");
    } else {
      assertThat(plan(given, "cost")).as(quirks().name()).doesNotContain("rowCount=");
    }
    assertThat(plan(probed, "cost")).as(quirks().name()).contains("rowCount=5");
    assertThat(plan(none, "cost")).doesNotContain("rowCount=");
    assertThat(sortedRows(given)).isEqualTo(sortedRows(probed)).isEqualTo(sortedRows(none));
  }
}
