package io.flightsql.spark.client.metadata;

import java.util.Optional;

/**
 * How a table's name is looked up on a server: whether case matters ({@code
 * spark.sql.caseSensitive}), and the query, in the server's established dialect, that asks where
 * the server looks for a name given without its schema (see {@link CurrentSchema}). Immutable.
 */
public final class NameLookup {
  private final boolean caseSensitive;
  private final String currentSchemaQuery;

  private NameLookup(boolean caseSensitive, String currentSchemaQuery) {
    this.caseSensitive = caseSensitive;
    this.currentSchemaQuery = currentSchemaQuery;
  }

  /**
   * @param caseSensitive whether a name matches only its exact spelling
   * @param currentSchemaQuery the query of the server's current catalog and schema, where its
   *     dialect is established; empty otherwise
   */
  public static NameLookup of(boolean caseSensitive, Optional<String> currentSchemaQuery) {
    return new NameLookup(caseSensitive, currentSchemaQuery.orElse(null));
  }

  public boolean caseSensitive() {
    return caseSensitive;
  }

  public Optional<String> currentSchemaQuery() {
    return Optional.ofNullable(currentSchemaQuery);
  }
}
