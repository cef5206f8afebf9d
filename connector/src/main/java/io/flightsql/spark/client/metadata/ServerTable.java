package io.flightsql.spark.client.metadata;

import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table as GetTables lists it: where it is, in the server's own spelling, its type ({@code
 * TABLE}, {@code VIEW}, ...) and, when the server sends them, its columns. Immutable.
 */
public final class ServerTable {
  private final TableRef ref;
  private final String type;
  private final Schema columns;

  ServerTable(TableRef ref, String type, Schema columns) {
    this.ref = ref;
    this.type = type;
    this.columns = columns;
  }

  public TableRef ref() {
    return ref;
  }

  /** The table type the server reports, or empty. */
  public String type() {
    return type == null ? "" : type;
  }

  /** The columns, when GetTables was asked for them and the server sent them. */
  public Optional<Schema> columns() {
    return Optional.ofNullable(columns);
  }

  @Override
  public String toString() {
    return ref.toString();
  }
}
