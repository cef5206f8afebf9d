package io.flightsql.spark.it;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.ExplainMode;

/**
 * SQL through the connector's catalog in an integration test: registers {@code
 * io.flightsql.spark.FlightSqlCatalog} (from the shaded jar) under a name, and turns results into
 * text rows ({@code a|b|c}) to compare.
 */
final class CatalogStatements {
  private final SparkSession spark;

  CatalogStatements(SparkSession spark, String catalog, String uri) {
    this.spark = spark;
    spark.conf().set("spark.sql.catalog." + catalog, "io.flightsql.spark.FlightSqlCatalog");
    spark.conf().set("spark.sql.catalog." + catalog + ".uri", uri);
  }

  Dataset<Row> sql(String sql) {
    return spark.sql(sql);
  }

  List<String> rows(String sql) {
    return rows(spark.sql(sql));
  }

  static List<String> rows(Dataset<Row> df) {
    List<String> out = new ArrayList<>();
    for (Row row : df.collectAsList()) {
      out.add(row.mkString("|"));
    }
    return out;
  }

  static String explain(Dataset<Row> df) {
    return df.queryExecution().explainString(ExplainMode.fromString("formatted"));
  }
}
