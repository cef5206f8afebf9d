package io.flightsql.spark.config;

import io.flightsql.spark.client.FlightUri;
import io.flightsql.spark.types.TypeMappingOptions;
import io.flightsql.spark.types.TypeMappingOptions.DecimalOverflow;
import io.flightsql.spark.types.TypeMappingOptions.Nanoseconds;
import java.io.Serializable;
import java.util.Map;
import java.util.Optional;

/**
 * The validated options of one read, built once on the driver and shipped to executors with each
 * partition. Immutable. Holds no secrets yet; when it does, {@link #toString()} must not show them.
 */
public final class FlightSqlReadConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  private final FlightUri uri;
  private final String query;
  private final String table;
  private final TypeMappingOptions typeOptions;
  private final ReadPartitioning partitioning;

  private FlightSqlReadConfig(
      FlightUri uri,
      String query,
      String table,
      TypeMappingOptions typeOptions,
      ReadPartitioning partitioning) {
    this.uri = uri;
    this.query = query;
    this.table = table;
    this.typeOptions = typeOptions;
    this.partitioning = partitioning;
  }

  /**
   * Validates the options of a read.
   *
   * @throws IllegalArgumentException naming the option at fault and what it expects
   */
  public static FlightSqlReadConfig from(Map<String, String> options) {
    OptionReader reader = OptionReader.of(options);
    FlightUri uri = reader.uri();
    Optional<String> query = reader.optional(FlightSqlOptions.QUERY);
    Optional<String> table = reader.optional(FlightSqlOptions.DBTABLE);
    if (query.isPresent() && table.isPresent()) {
      throw new IllegalArgumentException(
          "Options 'dbtable' and 'query' cannot be used together; use 'query' for ad-hoc SQL"
              + " or 'dbtable' to read a whole table");
    }
    TypeMappingOptions typeOptions =
        TypeMappingOptions.of(
            reader.choice(
                FlightSqlOptions.DECIMAL_OVERFLOW, DecimalOverflow.class, DecimalOverflow.ERROR),
            reader.choice(FlightSqlOptions.NANOSECONDS, Nanoseconds.class, Nanoseconds.TRUNCATE))
        .withMixedUnionsAsText(
            reader.choice(FlightSqlOptions.MIXED_UNIONS, MixedUnions.class, MixedUnions.ERROR)
                == MixedUnions.STRING);
    ReadPartitioning partitioning = ReadPartitioning.from(reader);
    if (table.isPresent()) {
      return new FlightSqlReadConfig(
          uri, "SELECT * FROM " + table.get(), table.get(), typeOptions, partitioning);
    }
    if (query.isPresent()) {
      return new FlightSqlReadConfig(
          uri, stripTrailingSemicolons(query.get()), null, typeOptions, partitioning);
    }
    throw new IllegalArgumentException(
        "One of options 'query' or 'dbtable' is required: 'query' for a SQL query, 'dbtable'"
            + " for a table name");
  }

  /** The values of option {@code mixedUnions}. */
  private enum MixedUnions {
    ERROR,
    STRING
  }

  private static String stripTrailingSemicolons(String sql) {
    String s = sql.trim();
    while (s.endsWith(";")) {
      s = s.substring(0, s.length() - 1).trim();
    }
    return s;
  }

  public FlightUri uri() {
    return uri;
  }

  /** The SQL sent to the server. */
  public String query() {
    return query;
  }

  /** The table read, when the read names one with {@code dbtable}. */
  public Optional<String> table() {
    return Optional.ofNullable(table);
  }

  /** How Arrow values that Spark cannot hold exactly are read. */
  public TypeMappingOptions typeOptions() {
    return typeOptions;
  }

  /** How the client splits the read into partitions, if it does. */
  public ReadPartitioning partitioning() {
    return partitioning;
  }

  /** A short name for plans and the Spark UI: the table, or the query. */
  public String displayName() {
    return table != null ? table : query;
  }

  @Override
  public String toString() {
    return "FlightSqlReadConfig{uri="
        + uri
        + ", query="
        + query
        + ", "
        + typeOptions
        + ", "
        + partitioning
        + "}";
  }
}
