package io.flightsql.spark.write;

import io.flightsql.spark.metrics.BytesSentMetric;
import io.flightsql.spark.metrics.RowsWrittenMetric;
import io.flightsql.spark.metrics.ServerWaitTimeMetric;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.types.StructType;

/** One planned write as Spark runs it: a batch write, and the metrics it reports. Driver only. */
final class FlightSqlWrite implements Write {
  private final WritePlan plan;
  private final StructType schema;

  FlightSqlWrite(WritePlan plan, StructType schema) {
    this.plan = plan;
    this.schema = schema;
  }

  @Override
  public String description() {
    return "FlightSqlWrite[" + plan.target() + ", " + plan.method().optionValue() + "]";
  }

  @Override
  public BatchWrite toBatch() {
    return new FlightSqlBatchWrite(plan, schema);
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return new CustomMetric[] {
      new RowsWrittenMetric(), new BytesSentMetric(), new ServerWaitTimeMetric()
    };
  }
}
