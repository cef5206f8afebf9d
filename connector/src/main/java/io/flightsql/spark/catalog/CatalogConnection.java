package io.flightsql.spark.catalog;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.ServerCapabilities;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.config.OptionSources;
import io.flightsql.spark.config.ReadWriteOptions;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.dialect.ResolvedDialect;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;

/**
 * What one catalog knows of its server and how it reaches it: the catalog's properties (its
 * options, validated as a read's are when the catalog starts), what the server can do and its
 * dialect (asked once, at the first need, and kept for the catalog's life), and the server's
 * catalogs (asked at the first need, and again whenever the namespaces are listed). Every option
 * merges as {@link OptionSources} says: the statement's own options, then the session's {@code
 * spark.datasource.flightsql.*}, then the catalog's properties. Driver only; thread-safe.
 */
final class CatalogConnection {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogConnection.class);

  private final String name;
  private final Map<String, String> properties;
  private ServerCapabilities capabilities;
  private ResolvedDialect dialect;
  private List<String> serverCatalogs;

  CatalogConnection(String name, Map<String, String> properties) {
    this.name = name;
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    // Fails at the first use of the catalog, naming the option, for a missing or bad uri.
    readConfig(Collections.emptyMap(), new TableRef(null, null, "validation"));
  }

  String name() {
    return name;
  }

  /** The options for a statement's own {@code options}, every source merged. */
  Map<String, String> options(Map<String, String> statementOptions) {
    return OptionSources.explicit(statementOptions)
        .withSessionConf(sessionConf())
        .withCatalogProperties(properties)
        .merged();
  }

  /** The catalog's default namespace parts (options {@code catalog}, {@code schema}), or empty. */
  String[] defaultNamespace() {
    Map<String, String> merged = options(Collections.emptyMap());
    List<String> parts = new ArrayList<>();
    for (String option :
        new String[] {ReadWriteOptions.CATALOG.name(), ReadWriteOptions.SCHEMA.name()}) {
      String value = valueIgnoringCase(merged, option);
      if (value != null && !value.trim().isEmpty()) {
        parts.add(value.trim());
      }
    }
    return parts.toArray(new String[0]);
  }

  /**
   * The read of one table: {@code dbtable} is the table, quoted by the dialect; options {@code
   * catalog} and {@code schema}, which name the default namespace, are left out, as the name is
   * complete.
   */
  FlightSqlReadConfig readConfig(Map<String, String> statementOptions, TableRef table) {
    Map<String, String> options = tableOptions(statementOptions);
    options.put(
        ReadWriteOptions.DBTABLE.name(),
        dialect == null ? table.toString() : dialect.dialect().table(table));
    return FlightSqlReadConfig.from(options);
  }

  /** The write of one table, {@code dbtable} in the form the option takes. */
  FlightSqlWriteConfig writeConfig(Map<String, String> statementOptions, TableRef table) {
    Map<String, String> options = tableOptions(statementOptions);
    options.put(ReadWriteOptions.DBTABLE.name(), table.toString());
    return FlightSqlWriteConfig.from(options);
  }

  private Map<String, String> tableOptions(Map<String, String> statementOptions) {
    Map<String, String> options = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : options(statementOptions).entrySet()) {
      String key = entry.getKey().toLowerCase(Locale.ROOT);
      if (!key.equals(ReadWriteOptions.CATALOG.name().toLowerCase(Locale.ROOT))
          && !key.equals(ReadWriteOptions.SCHEMA.name().toLowerCase(Locale.ROOT))
          && !key.equals(ReadWriteOptions.DBTABLE.name().toLowerCase(Locale.ROOT))) {
        options.put(entry.getKey(), entry.getValue());
      }
    }
    return options;
  }

  /** A session for one statement's metadata; the caller closes it. */
  FlightSqlSession open(String purpose) {
    FlightSqlReadConfig config =
        readConfig(Collections.emptyMap(), new TableRef(null, null, "catalog"));
    return FlightSqlSession.open(config.connection(), "catalog-" + purpose);
  }

  /** What the server can do (GetSqlInfo), asked once. */
  synchronized ServerCapabilities capabilities(FlightSqlSession session) {
    if (capabilities == null) {
      capabilities = session.capabilities();
      FlightSqlReadConfig config =
          readConfig(Collections.emptyMap(), new TableRef(null, null, "catalog"));
      dialect = Dialects.resolve(config.dialect(), capabilities);
      LOG.info("Catalog {} speaks {} with {}", name, dialect, capabilities);
    }
    return capabilities;
  }

  /** The server's dialect, found once with {@link #capabilities}. */
  synchronized Dialect dialect(FlightSqlSession session) {
    capabilities(session);
    return dialect.dialect();
  }

  /** What the server can do when it is known already, else null. */
  synchronized ServerCapabilities knownCapabilities() {
    return capabilities;
  }

  /** The dialect, and how it was established, when it is known already, else null. */
  synchronized ResolvedDialect knownDialect() {
    return dialect;
  }

  /**
   * The server's catalogs (GetCatalogs), from the last time they were asked; {@code refresh} asks
   * again. A server without GetCatalogs has none.
   */
  synchronized List<String> serverCatalogs(FlightSqlSession session, boolean refresh) {
    if (serverCatalogs == null || refresh) {
      List<String> found;
      try {
        found = session.catalogs();
      } catch (FlightSqlConnectorException e) {
        if (!"UNIMPLEMENTED".equals(e.statusCode())) {
          throw e;
        }
        LOG.info("{} does not implement GetCatalogs: namespaces are its schemas", session.server());
        found = Collections.emptyList();
      }
      serverCatalogs = Collections.unmodifiableList(new ArrayList<>(found));
    }
    return serverCatalogs;
  }

  private static String valueIgnoringCase(Map<String, String> options, String name) {
    for (Map.Entry<String, String> entry : options.entrySet()) {
      if (entry.getKey().equalsIgnoreCase(name)) {
        return entry.getValue();
      }
    }
    return null;
  }

  /**
   * The active session's configuration. Iterated through Scala's own iterator, which Scala 2.12 and
   * 2.13 both have, so the same class runs on Spark 3.5 and 4.
   */
  private static Map<String, String> sessionConf() {
    Map<String, String> conf = new LinkedHashMap<>();
    scala.collection.Iterator<Tuple2<String, String>> entries =
        SparkSession.active().conf().getAll().iterator();
    while (entries.hasNext()) {
      Tuple2<String, String> entry = entries.next();
      if (entry._1().startsWith(OptionSources.SESSION_CONF_PREFIX)) {
        conf.put(entry._1(), entry._2());
      }
    }
    return conf;
  }
}
