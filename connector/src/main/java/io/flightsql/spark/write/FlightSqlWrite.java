package io.flightsql.spark.write;

import io.flightsql.spark.metrics.BytesSentMetric;
import io.flightsql.spark.metrics.RowsWrittenMetric;
import io.flightsql.spark.metrics.ServerWaitTimeMetric;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.Write;

/**
 * One planned catalog write as Spark runs it: a batch write, and the metrics it reports in the SQL
 * tab. Driver only; not Serializable.
 */
final class FlightSqlWrite implements Write {
  private final WritePlan plan;

  FlightSqlWrite(WritePlan plan) {
    this.plan = plan;
  }

  @Override
  public String description() {
    return "FlightSqlWrite[" + plan.target() + ", " + plan.method().optionValue() + "]";
  }

  @Override
  public BatchWrite toBatch() {
    return new FlightSqlBatchWrite(plan);
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return new CustomMetric[] {
      new RowsWrittenMetric(), new BytesSentMetric(), new ServerWaitTimeMetric()
    };
  }
}
