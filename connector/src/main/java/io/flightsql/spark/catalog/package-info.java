/**
 * The connector's Spark catalog ({@code spark.sql.catalog.<name>}), which reaches a Flight SQL
 * server's catalogs, schemas and tables by name: {@link
 * io.flightsql.spark.catalog.FlightSqlTableCatalog} (configured through its thin entry point {@code
 * io.flightsql.spark.FlightSqlCatalog}), the tables it loads ({@code FlightSqlCatalogTable}) and
 * what it knows of its server ({@code CatalogConnection}). It sits beside {@code read} and {@code
 * write} and uses both; neither of them may use it.
 */
package io.flightsql.spark.catalog;
