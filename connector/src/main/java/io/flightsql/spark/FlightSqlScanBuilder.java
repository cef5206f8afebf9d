package io.flightsql.spark;

import io.flightsql.spark.config.FlightSqlReadConfig;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;

/** Builds the scan of one read. Driver only. Pushdown arrives here in a later release. */
final class FlightSqlScanBuilder implements ScanBuilder {
  private final StructType schema;
  private final FlightSqlReadConfig config;

  FlightSqlScanBuilder(StructType schema, FlightSqlReadConfig config) {
    this.schema = schema;
    this.config = config;
  }

  @Override
  public Scan build() {
    return new FlightSqlScan(schema, config);
  }
}
