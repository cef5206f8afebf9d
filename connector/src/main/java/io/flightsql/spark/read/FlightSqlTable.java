package io.flightsql.spark.read;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.ResolvedDialect;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A query's result or a server table as a Spark table that can be read in batch. Driver only; not
 * Serializable.
 */
public final class FlightSqlTable implements SupportsRead {
  private static final Set<TableCapability> CAPABILITIES =
      Collections.unmodifiableSet(EnumSet.of(TableCapability.BATCH_READ));

  private final StructType schema;
  private final FlightSqlReadConfig config;
  private final Set<String> comparableColumns;
  // The dialect found for the first query over this table, for the next ones: a DataFrame's
  // table plans each query, and asking the server (GetSqlInfo) each time costs a round trip.
  private final AtomicReference<ResolvedDialect> dialect = new AtomicReference<>();

  /**
   * @param comparableColumns the columns whose values the server compares as Spark does (see
   *     ComparableColumns), or null when the table was not built from the server's Arrow schema
   */
  public FlightSqlTable(
      StructType schema, FlightSqlReadConfig config, Set<String> comparableColumns) {
    this(schema, config, comparableColumns, null);
  }

  /**
   * @param knownDialect the server's dialect, as it was established, when the caller already knows
   *     it (a catalog resolves it once), or null to ask the server at the first scan
   */
  public FlightSqlTable(
      StructType schema,
      FlightSqlReadConfig config,
      Set<String> comparableColumns,
      ResolvedDialect knownDialect) {
    this.schema = schema;
    this.config = config;
    this.comparableColumns = comparableColumns;
    this.dialect.set(knownDialect);
  }

  @Override
  public String name() {
    return "flightsql:" + config.displayName();
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return ScanBuilders.create(schema, config, comparableColumns, dialect);
  }
}
