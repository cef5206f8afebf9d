package io.flightsql.spark;

import io.flightsql.spark.read.RuntimeFilterSources;
import org.apache.spark.sql.SparkSessionExtensions;
import scala.Function1;
import scala.runtime.BoxedUnit;

/**
 * The connector's additions to Spark's optimizer, for {@code spark.sql.extensions}:
 *
 * <pre>
 * spark.sql.extensions=io.flightsql.spark.FlightSqlExtensions
 * </pre>
 *
 * <p>One rule, {@link RuntimeFilterSources}: a star join whose dimension read has its filter pushed
 * to the server still gets Spark's runtime filter on its fact read, so that the fact read receives
 * only the rows of the dimension's keys (docs/pushdown.md, "Runtime filters"). Without the
 * extension, that takes option {@code keepFiltersInSpark=true} on the dimension's read. The
 * extension opens no connection and reads no option; {@code spark_flightsql.configure()} adds it
 * for PySpark users.
 */
public final class FlightSqlExtensions implements Function1<SparkSessionExtensions, BoxedUnit> {
  public FlightSqlExtensions() {}

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectPreCBORule(RuntimeFilterSources::new);
    return BoxedUnit.UNIT;
  }
}
