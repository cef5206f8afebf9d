package io.flightsql.spark.client.metadata;

import io.flightsql.spark.client.transport.EndpointStreams;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.SessionClients;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.vector.util.Text;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out how a server that does not say (no SQL_IDENTIFIER_QUOTE_CHAR in GetSqlInfo, or no
 * GetSqlInfo at all) quotes identifiers, with queries whose answers tell identifiers from strings:
 *
 * <ul>
 *   <li>{@code SELECT "c" FROM (SELECT 1 AS c) t} is 1 where double quotes name identifiers (ANSI)
 *       and the string {@code c} where they make strings (Spark SQL, which quotes with backticks);
 *   <li>where that fails, {@code SELECT `c` FROM (SELECT 1 AS c) t} is 1 where backticks quote.
 * </ul>
 *
 * Any other answer, or two refusals, leave the quote unknown. Errors that say nothing of the SQL
 * (the server unreachable, credentials refused, a deadline) are raised, not taken for an answer.
 */
final class QuotingProbe {
  private static final Logger LOG = LoggerFactory.getLogger(QuotingProbe.class);

  static final String DOUBLE_QUOTES = "SELECT \"c\" FROM (SELECT 1 AS c) t";
  static final String BACKTICKS = "SELECT `c` FROM (SELECT 1 AS c) t";

  private final FlightUri server;
  private final SessionClients clients;
  private final EndpointStreams streams;

  QuotingProbe(FlightUri server, SessionClients clients, EndpointStreams streams) {
    this.server = server;
    this.clients = clients;
    this.streams = streams;
  }

  /** {@code capabilities} with the quote the probe established, or still without one. */
  ServerCapabilities establish(ServerCapabilities capabilities) {
    Object answer = firstValue(DOUBLE_QUOTES);
    if (isOne(answer)) {
      LOG.info("{} quotes identifiers with \" (probe: {})", server, DOUBLE_QUOTES);
      return capabilities.withProbedQuote("\"", false);
    }
    if (answer != null && "c".equals(answer.toString())) {
      LOG.info("{} reads \"c\" as a string, as Spark SQL does: quoting with `", server);
      return capabilities.withProbedQuote("`", true);
    }
    if (answer == REFUSED) {
      Object backticks = firstValue(BACKTICKS);
      if (isOne(backticks)) {
        LOG.info("{} quotes identifiers with ` (probe: {})", server, BACKTICKS);
        return capabilities.withProbedQuote("`", false);
      }
    }
    LOG.info("{} does not say how it quotes identifiers, and the probes could not tell", server);
    return capabilities.withProbedQuote("", false);
  }

  /** Marks a query the server refused. */
  private static final Object REFUSED = new Object();

  /** The first value of the first row of the query's answer; null when there is none. */
  private Object firstValue(String sql) {
    Object[] first = new Object[1];
    try {
      FlightInfo info = clients.forServer().executeBounded(sql);
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        // Every endpoint is read to its end, so that no server keeps a result waiting.
        streams.forEachRow(
            endpoint,
            (root, row) -> {
              if (first[0] == null && root.getFieldVectors().size() == 1) {
                Object value = root.getVector(0).getObject(row);
                first[0] = value instanceof Text ? value.toString() : value;
              }
            });
      }
      return first[0];
    } catch (RuntimeException e) {
      if (FlightErrors.isAboutTheCall(e)) {
        throw e instanceof FlightSqlConnectorException
            ? (FlightSqlConnectorException) e
            : SessionClients.failed("GetFlightInfo", server, e);
      }
      LOG.debug("{} refused the probe {}: {}", server, sql, e.getMessage());
      return REFUSED;
    }
  }

  private static boolean isOne(Object value) {
    return value instanceof Number
        && !(value instanceof Double || value instanceof Float)
        && ((Number) value).longValue() == 1;
  }
}
