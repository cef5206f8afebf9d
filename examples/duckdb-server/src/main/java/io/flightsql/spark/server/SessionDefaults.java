package io.flightsql.spark.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The default catalog and schema of a session's queries and statements, as the session options
 * {@code catalog} and {@code schema} set them; either may be unset (null). Applied with DuckDB's
 * {@code USE} on each connection that a call of the session runs on.
 */
record SessionDefaults(String catalog, String schema) {

  static final SessionDefaults NONE = new SessionDefaults(null, null);

  static final String CATALOG = "catalog";
  static final String SCHEMA = "schema";

  boolean isEmpty() {
    return catalog == null && schema == null;
  }

  SessionDefaults withCatalog(String catalog) {
    return new SessionDefaults(catalog, schema);
  }

  SessionDefaults withSchema(String schema) {
    return new SessionDefaults(catalog, schema);
  }

  /**
   * The {@code USE} statement that makes these the defaults of a connection, or null if there are
   * none. A schema without a catalog is a schema of {@code defaultCatalog}, the database's own.
   */
  String useStatement(String defaultCatalog) {
    if (isEmpty()) {
      return null;
    }
    String target = QuerySql.quoteIdentifier(catalog == null ? defaultCatalog : catalog);
    if (schema != null) {
      target += "." + QuerySql.quoteIdentifier(schema);
    }
    return "USE " + target;
  }

  /** The options that are set, by name, as GetSessionOptions reports them. */
  Map<String, String> options() {
    Map<String, String> options = new LinkedHashMap<>();
    if (catalog != null) {
      options.put(CATALOG, catalog);
    }
    if (schema != null) {
      options.put(SCHEMA, schema);
    }
    return options;
  }
}
