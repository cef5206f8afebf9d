package io.flightsql.spark.client.metadata;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A table on the server: its name and, when given, its schema and catalog. Parsed from option
 * {@code dbtable} ({@code name}, {@code schema.name} or {@code catalog.schema.name}, each part
 * optionally in double quotes, {@code ""} for a quote inside) and options {@code catalog} and
 * {@code schema}. Immutable and Serializable.
 */
public final class TableRef implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String catalog;
  private final String schema;
  private final String name;

  public TableRef(String catalog, String schema, String name) {
    this.catalog = emptyToNull(catalog);
    this.schema = emptyToNull(schema);
    this.name = Objects.requireNonNull(emptyToNull(name), "name");
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  /**
   * Parses a dotted, optionally quoted table name; {@code catalog} and {@code schema} fill in the
   * parts the name leaves out.
   *
   * @throws IllegalArgumentException for an empty part, an unclosed quote or more than three parts
   */
  public static TableRef parse(String dbtable, String catalog, String schema) {
    List<String> parts = new ArrayList<>();
    StringBuilder part = new StringBuilder();
    boolean quoted = false;
    boolean wasQuoted = false;
    for (int i = 0; i < dbtable.length(); i++) {
      char c = dbtable.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < dbtable.length() && dbtable.charAt(i + 1) == '"') {
          part.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          part.append(c);
        }
      } else if (c == '"') {
        quoted = true;
        wasQuoted = true;
      } else if (c == '.') {
        addPart(parts, part, wasQuoted, dbtable);
        part.setLength(0);
        wasQuoted = false;
      } else {
        part.append(c);
      }
    }
    if (quoted) {
      throw new IllegalArgumentException("an unclosed double quote in '" + dbtable + "'");
    }
    addPart(parts, part, wasQuoted, dbtable);
    if (parts.size() > 3) {
      throw new IllegalArgumentException(
          "'" + dbtable + "' has more than three parts (catalog.schema.table)");
    }
    String name = parts.get(parts.size() - 1);
    String parsedSchema = parts.size() >= 2 ? parts.get(parts.size() - 2) : schema;
    String parsedCatalog = parts.size() == 3 ? parts.get(0) : catalog;
    return new TableRef(parsedCatalog, parsedSchema, name);
  }

  private static void addPart(List<String> parts, StringBuilder part, boolean quoted, String text) {
    String value = quoted ? part.toString() : part.toString().trim();
    if (value.isEmpty()) {
      throw new IllegalArgumentException("an empty name part in '" + text + "'");
    }
    parts.add(value);
  }

  public String catalog() {
    return catalog;
  }

  public String schema() {
    return schema;
  }

  public String name() {
    return name;
  }

  /** The same place with another table name (a staging table next to the target). */
  public TableRef withName(String otherName) {
    return new TableRef(catalog, schema, otherName);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof TableRef)) {
      return false;
    }
    TableRef other = (TableRef) o;
    return Objects.equals(catalog, other.catalog)
        && Objects.equals(schema, other.schema)
        && name.equals(other.name);
  }

  @Override
  public int hashCode() {
    return Objects.hash(catalog, schema, name);
  }

  /**
   * The name for messages, in the form option {@code dbtable} takes: each part in double quotes.
   * Never SQL: statements quote names with the server's dialect.
   */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    for (String part : new String[] {catalog, schema, name}) {
      if (part != null) {
        out.append(out.length() > 0 ? "." : "")
            .append('"')
            .append(part.replace("\"", "\"\""))
            .append('"');
      }
    }
    return out.toString();
  }
}
