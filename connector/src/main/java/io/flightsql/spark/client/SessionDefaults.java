package io.flightsql.spark.client;

import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlClientWithOptions;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.SessionClients;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes options {@code catalog} and {@code schema} the defaults of the server's session
 * (SetSessionOptions), so that the server resolves unqualified table names in them.
 */
final class SessionDefaults {
  private static final Logger LOG = LoggerFactory.getLogger(SessionDefaults.class);

  private SessionDefaults() {}

  /**
   * Sends options {@code catalog} and {@code schema} to the server of option {@code uri} through
   * {@code client}, which must be that server's. True when neither is set or the server accepted
   * them; false when the server does not implement SetSessionOptions or does not know the options,
   * and the caller qualifies names itself.
   *
   * @throws IllegalArgumentException when the server refuses a value
   * @throws FlightSqlConnectorException when SetSessionOptions fails otherwise
   */
  static boolean apply(FlightSqlClientWithOptions client, ConnectionSettings settings) {
    if (settings.catalog() == null && settings.schema() == null) {
      return true;
    }
    FlightUri server = settings.uri();
    Map<String, SessionOptionValue> values = new LinkedHashMap<>();
    if (settings.catalog() != null) {
      values.put("catalog", SessionOptionValueFactory.makeSessionOptionValue(settings.catalog()));
    }
    if (settings.schema() != null) {
      values.put("schema", SessionOptionValueFactory.makeSessionOptionValue(settings.schema()));
    }
    SetSessionOptionsResult result;
    try {
      result = client.setSessionOptions(new SetSessionOptionsRequest(values));
    } catch (RuntimeException e) {
      if (FlightErrors.isUnimplemented(e)) {
        LOG.info(
            "{} does not implement SetSessionOptions; options 'catalog' and 'schema' qualify"
                + " table names instead",
            server);
        return false;
      }
      throw SessionClients.failed("DoAction(SetSessionOptions)", server, e);
    }
    for (Map.Entry<String, SetSessionOptionsResult.Error> error : result.getErrors().entrySet()) {
      String reason = String.valueOf(error.getValue().value);
      if ("INVALID_NAME".equals(reason)) {
        LOG.info(
            "{} does not know session option '{}'; options 'catalog' and 'schema' qualify"
                + " table names instead",
            server,
            error.getKey());
        return false;
      }
      String value = "catalog".equals(error.getKey()) ? settings.catalog() : settings.schema();
      throw new IllegalArgumentException(
          "Invalid value '"
              + value
              + "' for option '"
              + error.getKey()
              + "': "
              + server
              + " refused it as the session's default ("
              + reason
              + " from SetSessionOptions)");
    }
    return true;
  }
}
