package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ExplainMode;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code df.sample(fraction)} of a {@code dbtable} read of the embedded DuckDB server goes to the
 * server as its Bernoulli sampling clause: EXPLAIN shows it, the rows are rows of the table, about
 * the fraction of them (the bounds are 14 standard deviations wide), and filters after the sample
 * are pushed with it. Samples with replacement, splits of {@code randomSplit}, samples of a {@code
 * query} and samples with the option off stay with Spark.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class TableSampleTest {
  private static final int ROWS = 20_000;

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).endpoints(2).lineitemRows(ROWS));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static DataFrameReader read() {
    return spark.session().read().format("flightsql").option("uri", duckDb.uri());
  }

  private static String plan(Dataset<Row> df) {
    return df.queryExecution().explainString(ExplainMode.fromString("formatted"));
  }

  @Test
  void aSampleOfATableIsTheServersBernoulliSample() {
    Dataset<Row> lineitem = read().option("dbtable", "lineitem").load();
    Dataset<Row> sample = lineitem.sample(0.1, 42).where("l_quantity > 10");

    assertThat(plan(sample))
        .contains("PushedSample: TABLESAMPLE bernoulli(10 PERCENT) REPEATABLE (42)")
        .contains("FROM lineitem TABLESAMPLE bernoulli(10 PERCENT) REPEATABLE (42) WHERE")
        .doesNotContain("Sample (");
    long all = lineitem.where("l_quantity > 10").count();
    long sampled = sample.count();
    // Binomial(all, 0.1): its standard deviation is under 42 rows here.
    assertThat(sampled).isBetween(all / 10 - 600, all / 10 + 600);
    Dataset<Row> keys = sample.select("l_orderkey", "l_linenumber");
    assertThat(keys.except(lineitem.select("l_orderkey", "l_linenumber")).count()).isZero();
    assertThat(keys.distinct().count()).isEqualTo(keys.count());
  }

  @Test
  void samplesTheServerCannotDrawAsSparkWouldStayWithSpark() {
    Dataset<Row> lineitem = read().option("dbtable", "lineitem").load();
    assertThat(plan(lineitem.sample(true, 0.1, 1))).doesNotContain("PushedSample");
    Dataset<Row>[] splits = lineitem.randomSplit(new double[] {0.5, 0.5}, 7);
    assertThat(plan(splits[1])).doesNotContain("PushedSample");
    assertThat(splits[0].count() + splits[1].count()).isEqualTo(ROWS);
    Dataset<Row> query = read().option("query", "SELECT * FROM lineitem").load();
    assertThat(plan(query.sample(0.1))).doesNotContain("PushedSample");
    Dataset<Row> off =
        read().option("dbtable", "lineitem").option("pushDownTableSample", "false").load();
    assertThat(plan(off.sample(0.1))).doesNotContain("PushedSample").contains("Sample");
  }
}
