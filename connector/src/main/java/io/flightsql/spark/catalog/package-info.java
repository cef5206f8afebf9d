/**
 * Reserved for the connector's Spark catalog ({@code spark.sql.catalog.<name>}), which reaches a
 * Flight SQL server's catalogs, schemas and tables by name. It sits beside {@code read} and {@code
 * write} and uses both; neither of them may use it.
 */
package io.flightsql.spark.catalog;
