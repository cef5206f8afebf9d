package io.flightsql.spark.write;

import io.flightsql.spark.client.metadata.ServerCapabilities;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;

/**
 * The write of a table that a catalog found on the server ({@code INSERT INTO}, {@code INSERT
 * OVERWRITE}, {@code CREATE TABLE ... AS SELECT}, {@code df.writeTo(...)}): Spark has already
 * matched the query's columns to the table's, so the rows arrive in the table's own names. An
 * overwrite ({@link #truncate()}) deletes the old rows and keeps the table's definition; with
 * option {@code atomic} {@code auto} (the default) or {@code true}, only when the job commits, as
 * {@link WritePlanner} plans it; with {@code false}, when the job starts ({@link JobStart}). The
 * plan is made when Spark builds the write, on the driver, and changes nothing on the server: Spark
 * builds it while it optimizes, for an {@code EXPLAIN} too. Not Serializable.
 */
public final class FlightSqlWriteBuilder implements WriteBuilder, SupportsTruncate {
  private final FlightSqlWriteConfig config;
  private final TableRef target;
  private final LogicalWriteInfo info;
  private final ServerCapabilities capabilities;
  private boolean overwrite;

  /**
   * @param target the table in the server's own spelling
   * @param capabilities what the server can do, when the caller knows; null to ask it
   */
  public FlightSqlWriteBuilder(
      FlightSqlWriteConfig config,
      TableRef target,
      LogicalWriteInfo info,
      ServerCapabilities capabilities) {
    this.config = config;
    this.target = target;
    this.info = info;
    this.capabilities = capabilities;
  }

  @Override
  public WriteBuilder truncate() {
    overwrite = true;
    return this;
  }

  @Override
  public Write build() {
    WritePlan plan =
        new WritePlanner(config, info.schema(), true).planExisting(target, overwrite, capabilities);
    return new FlightSqlWrite(plan);
  }
}
