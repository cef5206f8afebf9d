package io.flightsql.spark.it;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** What an embedded DuckDB server holds, asked of DuckDB itself, outside Flight SQL and Spark. */
final class DuckDbQueries {
  private DuckDbQueries() {}

  /** The first column of the first row of {@code sql}'s answer, as a long. */
  static long single(DuckDbFlightSqlServer server, String sql) throws SQLException {
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return result.getLong(1);
    }
  }
}
