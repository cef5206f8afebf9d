package io.flightsql.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.AdversarialValues;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.RowValues;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pushes filters with adversarial strings and column names into the embedded DuckDB server: every
 * result equals Spark's own with pushdown off, each filter is pushed exactly when the dialect can
 * write its value (all but strings with NUL or lone surrogates), and no second statement ever runs
 * (the canary table keeps its rows).
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class PushdownInjectionTest {
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).lineitemRows(0));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static List<String> values;

  @BeforeAll
  static void tables() throws Exception {
    values = AdversarialValues.strings(true);
    try (Connection c = duckDb.server().newConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE canary (id INTEGER, v VARCHAR)");
      s.execute("INSERT INTO canary VALUES (1, 'alive'), (2, 'still alive')");
      StringBuilder ddl = new StringBuilder("CREATE TABLE adversarial (id INTEGER, s VARCHAR");
      for (String name : AdversarialValues.columnNames()) {
        ddl.append(", \"").append(name.replace("\"", "\"\"")).append("\" VARCHAR");
      }
      s.execute(ddl.append(')').toString());
      int columns = AdversarialValues.columnNames().size();
      String marks = "?, ?" + ", ?".repeat(columns);
      try (PreparedStatement insert =
          c.prepareStatement("INSERT INTO adversarial VALUES (" + marks + ")")) {
        for (int i = 0; i < values.size(); i++) {
          insert.setInt(1, i);
          insert.setString(2, values.get(i));
          for (int k = 0; k < columns; k++) {
            insert.setString(3 + k, values.get((i + k + 1) % values.size()));
          }
          insert.executeUpdate();
        }
        insert.setInt(1, values.size());
        for (int k = 2; k <= columns + 2; k++) {
          insert.setString(k, null);
        }
        insert.executeUpdate();
      }
    }
  }

  private static Dataset<Row> read(boolean pushdown) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", "adversarial")
        .option("pushDownPredicate", Boolean.toString(pushdown))
        .load();
  }

  /** A column of the DataFrame by its exact name (Spark would read dots and backticks). */
  private static Column column(Dataset<Row> df, String name) {
    return df.col("`" + name.replace("`", "``") + "`");
  }

  private static List<Long> ids(Dataset<Row> df) {
    List<Long> ids = new ArrayList<>();
    for (Row row : df.collectAsList()) {
      ids.add(((Number) row.get(0)).longValue());
    }
    ids.sort(Long::compare);
    return ids;
  }

  private static final Map<String, BiFunction<Column, String, Column>> OPERATORS =
      Map.of(
          "=", (c, v) -> c.equalTo(lit(v)),
          "<>", (c, v) -> c.notEqual(lit(v)),
          "<", (c, v) -> c.lt(lit(v)),
          ">=", (c, v) -> c.geq(lit(v)),
          "<=>", (c, v) -> c.eqNullSafe(lit(v)),
          "NOT <=>", (c, v) -> functions_not(c.eqNullSafe(lit(v))),
          "IN", (c, v) -> c.isin(v, "a", "'"),
          "STARTS_WITH", (c, v) -> c.startsWith(v),
          "ENDS_WITH", (c, v) -> c.endsWith(v),
          "CONTAINS", (c, v) -> c.contains(v));

  private static Column functions_not(Column c) {
    return org.apache.spark.sql.functions.not(c);
  }

  @Test
  void adversarialValuesAndNamesArePushedSafelyAndFilterAsSparkDoes() throws Exception {
    assertThat(values.size()).isGreaterThanOrEqualTo(100);
    Dataset<Row> pushed = read(true);
    Dataset<Row> unpushed = read(false).cache();
    List<String> names = new ArrayList<>();
    names.add("s");
    names.addAll(AdversarialValues.columnNames());
    List<String> operators = new ArrayList<>(OPERATORS.keySet());
    int checked = 0;
    int pushedCount = 0;
    for (int n = 0; n < names.size(); n++) {
      String name = names.get(n);
      // Every value against column s; a sample against each adversarial column name.
      List<String> sample = n == 0 ? values : values.subList(0, 4);
      for (String value : sample) {
        // Spark with pushdown off: every operator in one job over the cached rows.
        List<Column> tests = new ArrayList<>();
        tests.add(col("id"));
        for (String op : operators) {
          tests.add(OPERATORS.get(op).apply(column(unpushed, name), value));
        }
        List<Row> expectedRows = unpushed.select(tests.toArray(new Column[0])).collectAsList();
        boolean writable = value.indexOf('\0') < 0;
        for (int o = 0; o < operators.size(); o++) {
          String op = operators.get(o);
          List<Long> expected = new ArrayList<>();
          for (Row row : expectedRows) {
            if (!row.isNullAt(o + 1) && row.getBoolean(o + 1)) {
              expected.add(((Number) row.get(0)).longValue());
            }
          }
          expected.sort(Long::compare);
          Dataset<Row> p =
              pushed.filter(OPERATORS.get(op).apply(column(pushed, name), value)).select("id");
          String what = op + " on " + name + " with " + shorten(value);
          String plan = p.queryExecution().executedPlan().toString();
          assertThat(ids(p)).as(what).isEqualTo(expected);
          if (writable) {
            assertThat(plan).as(what).doesNotContain("Filter ");
            pushedCount++;
          } else {
            assertThat(plan).as(what).contains("Filter ");
          }
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(1000);
    assertThat(pushedCount).isGreaterThan(900);
    try (Connection c = duckDb.server().newConnection()) {
      assertThat(RowValues.fromJdbc(c, "SELECT id, v FROM canary ORDER BY id"))
          .containsExactly(List.of(1L, "alive"), List.of(2L, "still alive"));
      assertThat(RowValues.fromJdbc(c, "SELECT count(*) FROM adversarial"))
          .containsExactly(List.of((long) values.size() + 1));
    }
    unpushed.unpersist(true);
  }

  private static String shorten(String value) {
    String shown =
        value.length() > 40 ? value.substring(0, 40) + "...(" + value.length() + ")" : value;
    return "'" + shown.replace("\0", "\\0") + "'";
  }
}
