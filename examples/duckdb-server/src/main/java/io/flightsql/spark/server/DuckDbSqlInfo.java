package io.flightsql.spark.server;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlNullOrdering;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedCaseSensitivity;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedTransaction;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;

/**
 * What this server tells clients about itself through GetSqlInfo: all of it in {@link #create}, so
 * that a feature (transactions, bulk ingestion, ...) is announced by flipping one line here.
 *
 * <p>Announced: transactions (not savepoints), bulk ingestion, and bulk ingestion inside a
 * transaction; no cancellation, no Substrait.
 */
final class DuckDbSqlInfo {

  static final String SERVER_NAME = "spark-flightsql DuckDB server";

  private DuckDbSqlInfo() {}

  /**
   * @param transactions whether to report transactions; without them the server says it has none,
   *     as servers without transactions do
   */
  static SqlInfoBuilder create(DuckDbDatabase database, boolean transactions) throws SQLException {
    List<String> keywords;
    try (DuckDBConnection connection = database.connect()) {
      keywords = keywords(connection);
    }
    return new SqlInfoBuilder()
        .withFlightSqlServerName(SERVER_NAME)
        .withFlightSqlServerVersion(database.version())
        .withFlightSqlServerArrowVersion(arrowVersion())
        .withFlightSqlServerReadOnly(false)
        .withFlightSqlServerSql(true)
        .withFlightSqlServerSubstrait(false)
        // BeginTransaction/EndTransaction; DuckDB has no savepoints.
        .withFlightSqlServerTransaction(
            transactions
                ? SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_TRANSACTION
                : SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_NONE)
        .withFlightSqlServerCancel(false)
        // CommandStatementIngest, also inside a transaction.
        .withFlightSqlServerBulkIngestion(true)
        .withFlightSqlServerBulkIngestionTransaction(transactions)
        .withSqlTransactionsSupported(transactions)
        // The Flight SQL JDBC driver fails without a default level (and Spark's JDBC writer then
        // writes without transactions). DuckDB's MVCC transactions conflict on concurrent writes
        // rather than allow them, the closest of the levels Flight SQL names being SERIALIZABLE.
        .withSqlDefaultTransactionIsolation(
            org.apache.arrow.flight.sql.impl.FlightSql.SqlTransactionIsolationLevel
                .SQL_TRANSACTION_SERIALIZABLE
                .getNumber())
        .withSqlIdentifierQuoteChar("\"")
        .withSqlSearchStringEscape("\\")
        .withSqlCatalogTerm("catalog")
        .withSqlSchemaTerm("schema")
        .withSqlDdlCatalog(true)
        .withSqlDdlSchema(true)
        .withSqlDdlTable(true)
        // DuckDB matches identifiers case-insensitively, quoted or not, and keeps their case.
        .withSqlIdentifierCase(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE)
        .withSqlQuotedIdentifierCase(
            SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE)
        .withSqlNullOrdering(SqlNullOrdering.SQL_NULLS_SORTED_AT_END)
        .withSqlSupportsColumnAliasing(true)
        .withSqlNullPlusNullIsNull(true)
        .withSqlSupportsExpressionsInOrderBy(true)
        .withSqlSupportsLikeEscapeClause(true)
        .withSqlSupportsNonNullableColumns(true)
        .withSqlCorrelatedSubqueriesSupported(true)
        .withSqlKeywords(keywords.toArray(new String[0]));
  }

  /** DuckDB's reserved and unreserved keywords, upper case, as Flight SQL lists them. */
  private static List<String> keywords(DuckDBConnection connection) throws SQLException {
    List<String> keywords = new ArrayList<>();
    try (PreparedStatement statement =
            connection.prepareStatement(
                "SELECT upper(keyword_name) FROM duckdb_keywords() ORDER BY 1");
        ResultSet rows = statement.executeQuery()) {
      while (rows.next()) {
        keywords.add(rows.getString(1));
      }
    }
    return keywords;
  }

  /** The version of the Arrow Java library on the classpath, from its jar's manifest. */
  static String arrowVersion() {
    String version = Schema.class.getPackage().getImplementationVersion();
    return version == null ? "unknown" : version;
  }
}
