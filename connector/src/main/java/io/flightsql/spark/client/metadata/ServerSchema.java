package io.flightsql.spark.client.metadata;

import java.util.Objects;

/**
 * A schema as GetDbSchemas lists it, with its catalog; either may be absent (null) on servers that
 * have no such level. Immutable.
 */
public final class ServerSchema {
  private final String catalog;
  private final String schema;

  public ServerSchema(String catalog, String schema) {
    this.catalog = catalog == null || catalog.isEmpty() ? null : catalog;
    this.schema = schema == null || schema.isEmpty() ? null : schema;
  }

  /** The catalog, or null. */
  public String catalog() {
    return catalog;
  }

  /** The schema, or null. */
  public String schema() {
    return schema;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServerSchema
        && Objects.equals(catalog, ((ServerSchema) o).catalog)
        && Objects.equals(schema, ((ServerSchema) o).schema);
  }

  @Override
  public int hashCode() {
    return Objects.hash(catalog, schema);
  }

  @Override
  public String toString() {
    return (catalog == null ? "" : catalog + ".") + (schema == null ? "" : schema);
  }
}
