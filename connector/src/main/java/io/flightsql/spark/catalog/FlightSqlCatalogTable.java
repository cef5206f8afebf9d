package io.flightsql.spark.catalog;

import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.read.FlightSqlTable;
import io.flightsql.spark.read.RuntimeFilterSources;
import io.flightsql.spark.write.FlightSqlWriteBuilder;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A server table as the catalog loaded it: its name in the server's spelling, its Spark schema, and
 * which columns pushed filters may compare, all found by one GetTables call (or a probe query).
 * Reads go through the connector's read path ({@link FlightSqlTable}, every pushdown included) and
 * writes through its write path ({@link FlightSqlWriteBuilder}: {@code INSERT INTO}, {@code INSERT
 * OVERWRITE}, {@code CREATE TABLE ... AS SELECT}); the options of a statement ({@code
 * spark.read.option}, {@code df.writeTo(...).option}) beat the session's and the catalog's. Driver
 * only.
 */
final class FlightSqlCatalogTable
    implements SupportsRead, SupportsWrite, RuntimeFilterSources.Source {
  private static final Set<TableCapability> CAPABILITIES =
      Collections.unmodifiableSet(
          EnumSet.of(
              TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE));

  private final CatalogConnection connection;
  private final TableRef table;
  private final StructType schema;
  private final Set<String> comparableColumns;
  private final Map<String, String> properties;

  /**
   * @param comparableColumns the columns the server compares as Spark does, or null when unknown
   */
  FlightSqlCatalogTable(
      CatalogConnection connection,
      TableRef table,
      String tableType,
      StructType schema,
      Set<String> comparableColumns) {
    this.connection = connection;
    this.table = table;
    this.schema = schema;
    this.comparableColumns = comparableColumns;
    Map<String, String> props = new LinkedHashMap<>();
    props.put("flightsql.table", table.toString());
    if (tableType != null && !tableType.isEmpty()) {
      props.put("flightsql.tableType", tableType);
    }
    this.properties = Collections.unmodifiableMap(props);
  }

  @Override
  public String name() {
    return connection.name() + "." + table;
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType schema() {
    return schema;
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    FlightSqlTable read =
        new FlightSqlTable(
            schema,
            connection.readConfig(options.asCaseSensitiveMap(), table),
            comparableColumns,
            connection.knownDialect());
    return read.newScanBuilder(options);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new FlightSqlWriteBuilder(
        connection.writeConfig(info.options().asCaseSensitiveMap(), table),
        table,
        info,
        connection.knownCapabilities());
  }
}
