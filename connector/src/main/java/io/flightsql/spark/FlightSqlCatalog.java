package io.flightsql.spark;

import io.flightsql.spark.catalog.FlightSqlTableCatalog;

/**
 * The connector's Spark catalog, by the name users configure:
 *
 * <pre>
 * spark.sql.catalog.flight=io.flightsql.spark.FlightSqlCatalog
 * spark.sql.catalog.flight.uri=grpc://host:32010
 * </pre>
 *
 * <p>Every connection option of the data source is a catalog property too ({@code
 * spark.sql.catalog.flight.<option>}). The catalog itself is {@link FlightSqlTableCatalog}; see
 * docs/catalog.md. Driver only.
 */
public final class FlightSqlCatalog extends FlightSqlTableCatalog {
  public FlightSqlCatalog() {}
}
