package io.flightsql.spark;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.types.ArrowTypeMapping;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.catalog.SessionConfigSupport;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry point Spark finds by the short name {@code flightsql}: {@code
 * spark.read.format("flightsql")} and {@code CREATE TEMPORARY VIEW ... USING flightsql}. Runs on
 * the driver. Options may also come from session configuration {@code
 * spark.datasource.flightsql.*}, which explicit options override.
 */
public final class FlightSqlDataSource implements TableProvider, DataSourceRegister, SessionConfigSupport {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlDataSource.class);

  public FlightSqlDataSource() {}

  @Override
  public String shortName() {
    return "flightsql";
  }

  @Override
  public String keyPrefix() {
    return "flightsql";
  }

  /** Asks the server for the result schema of the query (or table) and maps it to Spark types. */
  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    FlightSqlReadConfig config = FlightSqlReadConfig.from(options);
    Schema arrowSchema;
    try (FlightSqlSession session = FlightSqlSession.open(config.uri(), "schema")) {
      arrowSchema = session.resultSchema(config.query());
    }
    StructType schema = ArrowTypeMapping.toSparkSchema(arrowSchema, config.typeOptions());
    LOG.info("Schema of {} from {}: {}", config.displayName(), config.uri(), schema.simpleString());
    return schema;
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return new FlightSqlTable(schema, FlightSqlReadConfig.from(properties));
  }
}
