package io.flightsql.spark.client.metadata;

import java.io.Serializable;
import java.util.Map;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a server says it can do (GetSqlInfo), as far as writes need to know. Immutable and
 * Serializable: read once on the driver and shipped with the write to executors. A server that does
 * not answer GetSqlInfo is taken to have no transactions and unknown bulk ingestion.
 *
 * <p>How the server quotes identifiers is established, never assumed: from GetSqlInfo's
 * SQL_IDENTIFIER_QUOTE_CHAR, or where that is missing from a probe query ({@link QuotingProbe}),
 * and otherwise it is unknown ({@link #quotingKnown()} false) and nothing that names a column is
 * pushed. GetSqlInfo's answer is taken only when it is one of the two quotes SQL engines use,
 * {@code "} or {@code `}: any other (a space, a bracket, a quote with spaces around it, as bridges
 * to other databases may answer) would write identifiers the server reads otherwise, so it counts
 * as not said.
 */
public final class ServerCapabilities implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ServerCapabilities.class);

  static final int FLIGHT_SQL_SERVER_NAME = SqlInfo.FLIGHT_SQL_SERVER_NAME.getNumber();
  static final int FLIGHT_SQL_SERVER_VERSION = SqlInfo.FLIGHT_SQL_SERVER_VERSION.getNumber();
  static final int FLIGHT_SQL_SERVER_TRANSACTION =
      SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION.getNumber();
  static final int FLIGHT_SQL_SERVER_BULK_INGESTION =
      SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION.getNumber();
  static final int FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED =
      SqlInfo.FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED.getNumber();
  static final int SQL_IDENTIFIER_QUOTE_CHAR = SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR.getNumber();

  /**
   * Transactions, as FLIGHT_SQL_SERVER_TRANSACTION's enum says: 0 none, 1 transactions, 2 +
   * savepoints.
   */
  private final boolean transactions;

  /** Null when the server did not say. */
  private final Boolean bulkIngestion;

  private final boolean ingestTransactions;
  private final String identifierQuote;
  private final String serverName;
  private final String serverVersion;

  /** Whether a probe found that the server reads SQL as Spark does ({@code "c"} is a string). */
  private final boolean sparkSql;

  /** Whether {@link #identifierQuote} is what a probe found rather than what GetSqlInfo said. */
  private final boolean quoteProbed;

  ServerCapabilities(
      boolean transactions,
      Boolean bulkIngestion,
      boolean ingestTransactions,
      String identifierQuote,
      String serverName,
      String serverVersion) {
    this(
        transactions,
        bulkIngestion,
        ingestTransactions,
        identifierQuote,
        serverName,
        serverVersion,
        false,
        false);
  }

  private ServerCapabilities(
      boolean transactions,
      Boolean bulkIngestion,
      boolean ingestTransactions,
      String identifierQuote,
      String serverName,
      String serverVersion,
      boolean sparkSql,
      boolean quoteProbed) {
    this.transactions = transactions;
    this.bulkIngestion = bulkIngestion;
    this.ingestTransactions = ingestTransactions;
    this.identifierQuote = identifierQuote;
    this.serverName = serverName;
    this.serverVersion = serverVersion;
    this.sparkSql = sparkSql;
    this.quoteProbed = quoteProbed;
  }

  /**
   * These capabilities with the identifier quote a probe established.
   *
   * @param quote the quote, or empty when the probe could not tell
   * @param sparkSql whether the server reads SQL as Spark does
   */
  ServerCapabilities withProbedQuote(String quote, boolean sparkSql) {
    return new ServerCapabilities(
        transactions,
        bulkIngestion,
        ingestTransactions,
        quote,
        serverName,
        serverVersion,
        sparkSql,
        !quote.isEmpty());
  }

  /** Capabilities from the values of a GetSqlInfo answer, by SqlInfo id. */
  static ServerCapabilities fromSqlInfo(Map<Integer, Object> info) {
    Object transaction = info.get(FLIGHT_SQL_SERVER_TRANSACTION);
    Object bulk = info.get(FLIGHT_SQL_SERVER_BULK_INGESTION);
    Object ingestTransactions = info.get(FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED);
    Object quote = info.get(SQL_IDENTIFIER_QUOTE_CHAR);
    Object name = info.get(FLIGHT_SQL_SERVER_NAME);
    Object version = info.get(FLIGHT_SQL_SERVER_VERSION);
    String serverName = name == null ? "" : name.toString();
    return new ServerCapabilities(
        transaction instanceof Number && ((Number) transaction).intValue() >= 1,
        bulk instanceof Boolean ? (Boolean) bulk : null,
        Boolean.TRUE.equals(ingestTransactions),
        acceptedQuote(quote == null ? "" : quote.toString(), serverName),
        serverName,
        version == null ? "" : version.toString());
  }

  /**
   * {@code said} when it is {@code "} or {@code `}, else empty (not said): the connector doubles
   * the quote inside a name, which makes a safe identifier only of these two.
   */
  static String acceptedQuote(String said, String serverName) {
    if (said.isEmpty() || said.equals("\"") || said.equals("`")) {
      return said;
    }
    LOG.info(
        "Server '{}' says in GetSqlInfo SQL_IDENTIFIER_QUOTE_CHAR that it quotes identifiers with"
            + " '{}'; only \" and ` are taken, so its quoting is found out otherwise",
        serverName,
        said);
    return "";
  }

  /** For a server that does not answer GetSqlInfo. */
  static ServerCapabilities unknown() {
    return new ServerCapabilities(false, null, false, "", "", "");
  }

  public boolean transactions() {
    return transactions;
  }

  /** TRUE or FALSE when the server said whether it has bulk ingestion, null when it did not. */
  public Boolean bulkIngestion() {
    return bulkIngestion;
  }

  /** Whether bulk ingestion can run inside a transaction. */
  public boolean ingestTransactions() {
    return ingestTransactions;
  }

  /** The characters that quote identifiers (SQL_IDENTIFIER_QUOTE_CHAR); empty when not said. */
  public String identifierQuote() {
    return identifierQuote;
  }

  /**
   * Whether the server's identifier quote is known, from GetSqlInfo or a probe. When it is not,
   * nothing that names a column may be sent.
   */
  public boolean quotingKnown() {
    return !identifierQuote.isEmpty();
  }

  /** Whether a probe found that the server speaks Spark SQL (backticks; {@code "c"} a string). */
  public boolean sparkSql() {
    return sparkSql;
  }

  /** Whether the identifier quote was established by a probe query, not said by GetSqlInfo. */
  public boolean quoteProbed() {
    return quoteProbed;
  }

  /** FLIGHT_SQL_SERVER_NAME, or empty. */
  public String serverName() {
    return serverName;
  }

  /** FLIGHT_SQL_SERVER_VERSION, or empty. */
  public String serverVersion() {
    return serverVersion;
  }

  @Override
  public String toString() {
    return "ServerCapabilities{server="
        + serverName
        + " "
        + serverVersion
        + ", transactions="
        + transactions
        + ", bulkIngestion="
        + bulkIngestion
        + ", ingestTransactions="
        + ingestTransactions
        + ", identifierQuote="
        + identifierQuote
        + (quoteProbed ? " (probed)" : "")
        + (sparkSql ? ", sparkSql" : "")
        + "}";
  }
}
