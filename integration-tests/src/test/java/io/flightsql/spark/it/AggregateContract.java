package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Pushed aggregates give Spark's own answer on every server, value and type: every numeric type the
 * server declares ({@link ServerQuirks#numericColumns()}) under COUNT, SUM, AVG, MIN and MAX, with
 * and without GROUP BY, each compared with Spark computing it over the same read with pushdown off;
 * the two answers once reported wrong (the average of the INTEGERs 1 and 2, which Derby gave as 1;
 * the sum of two SMALLINTs 30000, which Derby gave as no row); and a schema given to a read, in
 * another order than the table's, matched by name. Mixed into a {@link FlightSqlContractSuite}.
 */
interface AggregateContract {
  String NUMBERS = "contract_numbers";
  String REPORTED = "contract_reported";
  String[] FUNCTIONS = {"count", "sum", "avg", "min", "max"};

  ServerQuirks quirks();

  SparkSession spark();

  /** The servers (URIs) on which this JVM created the tables. */
  final class Created {
    static final Set<String> TABLES = ConcurrentHashMap.newKeySet();

    private Created() {}
  }

  private void tables() {
    synchronized (Created.TABLES) {
      if (Created.TABLES.contains(quirks().uri())) {
        return;
      }
      quirks().createNumericTable(NUMBERS, quirks().numericColumns());
      List<String> types = quirks().integerAndSmallint();
      quirks()
          .createNumericTable(
              REPORTED,
              List.of(
                  new ServerQuirks.NumericColumn("x", types.get(0), "1", "2"),
                  new ServerQuirks.NumericColumn("s", types.get(1), "30000", "30000")));
      Created.TABLES.add(quirks().uri());
    }
  }

  private DataFrameReader read(String table, boolean pushdown) {
    return spark()
        .read()
        .format("flightsql")
        .option("uri", quirks().uri())
        .options(quirks().options())
        .option("dbtable", table)
        .option("pushDownAggregate", Boolean.toString(pushdown))
        .option("pushDownPredicate", Boolean.toString(pushdown));
  }

  /** The rows of {@code select} over {@code table}, pushed, after checking Spark's own agree. */
  private List<Row> sameAnswer(String table, String select, String groupBy) {
    read(table, true).load().createOrReplaceTempView("aggregate_pushed");
    read(table, false).load().createOrReplaceTempView("aggregate_unpushed");
    String lead = groupBy == null ? "" : groupBy + ", ";
    String tail = groupBy == null ? "" : " GROUP BY " + groupBy + " ORDER BY " + groupBy;
    Dataset<Row> pushed = spark().sql("SELECT " + lead + select + " FROM aggregate_pushed" + tail);
    Dataset<Row> unpushed =
        spark().sql("SELECT " + lead + select + " FROM aggregate_unpushed" + tail);
    List<Row> rows = pushed.collectAsList();
    assertThat(values(rows))
        .as("%s on %s", select, quirks().name())
        .isEqualTo(values(unpushed.collectAsList()));
    assertThat(types(pushed)).as(select).isEqualTo(types(unpushed));
    return rows;
  }

  private static List<List<Object>> values(List<Row> rows) {
    List<List<Object>> values = new ArrayList<>();
    for (Row row : rows) {
      List<Object> cells = new ArrayList<>();
      for (int i = 0; i < row.length(); i++) {
        cells.add(row.get(i));
      }
      values.add(cells);
    }
    return values;
  }

  private static List<String> types(Dataset<Row> df) {
    List<String> types = new ArrayList<>();
    for (StructField field : df.schema().fields()) {
      types.add(field.dataType().simpleString());
    }
    return types;
  }

  @Test
  default void everyAggregateOfEveryNumericTypeIsSparksOwn() {
    Assumptions.assumeFalse(
        quirks().numericColumns().isEmpty(), quirks().name() + ": no tables made through SQL");
    tables();
    for (ServerQuirks.NumericColumn column : quirks().numericColumns()) {
      List<String> all = new ArrayList<>();
      for (String function : FUNCTIONS) {
        String select = function + "(" + column.name + ")";
        all.add(select);
        sameAnswer(NUMBERS, select, null);
      }
      sameAnswer(NUMBERS, String.join(", ", all), "g");
    }
  }

  @Test
  default void theAverageOfTheIntegersOneAndTwoIsOnePointFive() {
    Assumptions.assumeFalse(
        quirks().numericColumns().isEmpty(), quirks().name() + ": no tables made through SQL");
    tables();
    List<Row> rows = sameAnswer(REPORTED, "avg(x)", null);
    assertThat(values(rows)).isEqualTo(List.of(List.of(1.5)));
  }

  @Test
  default void theSumOfTwoSmallints30000Is60000() {
    Assumptions.assumeFalse(
        quirks().numericColumns().isEmpty(), quirks().name() + ": no tables made through SQL");
    tables();
    List<Row> rows = sameAnswer(REPORTED, "sum(s)", null);
    assertThat(values(rows)).isEqualTo(List.of(List.of(60000L)));
  }

  @Test
  default void aGivenSchemaInAnotherOrderIsMatchedByName() {
    String id = quirks().reportedName(ContractColumn.ID.sqlName());
    String name = quirks().reportedName(ContractColumn.NAME.sqlName());
    String schema =
        "`" + name + "` STRING, `" + id + "` " + quirks().sparkType(ContractColumn.ID).sql();
    Dataset<Row> given =
        spark()
            .read()
            .format("flightsql")
            .option("uri", quirks().uri())
            .options(quirks().options())
            .option("dbtable", FlightSqlContractSuite.TABLE)
            .schema(schema)
            .load();
    Dataset<Row> selected = read(FlightSqlContractSuite.TABLE, false).load().select(name, id);
    assertThat(given.columns()).containsExactly(name, id);
    assertThat(sorted(values(given.collectAsList())))
        .isEqualTo(sorted(values(selected.collectAsList())))
        .hasSize(FlightSqlContractSuite.ROWS.size());
  }

  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> copy = new ArrayList<>(rows);
    copy.sort(
        (a, b) -> Arrays.deepToString(a.toArray()).compareTo(Arrays.deepToString(b.toArray())));
    return copy;
  }
}
