package io.flightsql.spark.read;

import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialect;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The SQL of a read's source before anything is pushed: the user's {@code query}, or {@code SELECT
 * * FROM <dbtable>}. Where the session could not make options {@code catalog} and {@code schema}
 * its defaults (SetSessionOptions), an unqualified {@code dbtable} gets them as qualifiers, quoted
 * by the read's dialect; a {@code query} is always sent as written.
 */
public final class SourceQuery {
  private SourceQuery() {}

  /**
   * The source's SQL.
   *
   * @param sessionHasDefaults whether the session took options catalog and schema as defaults
   * @param dialect the read's dialect, asked for only when the table must be qualified
   */
  public static String sql(
      FlightSqlReadConfig config, boolean sessionHasDefaults, Supplier<Dialect> dialect) {
    return table(config, sessionHasDefaults, dialect)
        .map(table -> "SELECT * FROM " + table)
        .orElse(config.query());
  }

  /** The table read, qualified where {@link #sql} says; empty for a {@code query}. */
  static Optional<String> table(
      FlightSqlReadConfig config, boolean sessionHasDefaults, Supplier<Dialect> dialect) {
    Optional<String> table = config.table();
    String catalog = config.connection().catalog();
    String schema = config.connection().schema();
    if (!table.isPresent() || sessionHasDefaults || (catalog == null && schema == null)) {
      return table;
    }
    TableRef parsed;
    try {
      parsed = TableRef.parse(table.get(), null, null);
    } catch (IllegalArgumentException e) {
      return table;
    }
    if (parsed.schema() != null || parsed.catalog() != null) {
      return table;
    }
    Dialect d = dialect.get();
    StringBuilder qualified = new StringBuilder();
    if (catalog != null) {
      qualified.append(d.quoted(catalog)).append('.');
    }
    if (schema != null) {
      qualified.append(d.quoted(schema)).append('.');
    }
    return Optional.of(qualified.append(table.get().trim()).toString());
  }
}
