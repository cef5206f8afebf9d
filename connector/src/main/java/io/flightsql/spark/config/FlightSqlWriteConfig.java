package io.flightsql.spark.config;

import io.flightsql.spark.client.ConnectionSettings;
import io.flightsql.spark.client.FlightUri;
import io.flightsql.spark.client.TableRef;
import io.flightsql.spark.sql.SqlDialect;
import java.io.Serializable;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The validated options of one write, built on the driver and shipped to executors with the writer
 * factory. Immutable. Its connection settings hold secrets, which {@link #toString()} does not
 * show.
 */
public final class FlightSqlWriteConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /** How rows reach the server (option {@code writeMethod}). */
  public enum WriteMethod {
    /** Bulk ingestion where the server has it, else a prepared INSERT. */
    AUTO,
    /** Flight SQL bulk ingestion, {@code CommandStatementIngest}. */
    INGEST,
    /** A prepared {@code INSERT ... VALUES (?, ...)} bound to each batch. */
    PREPARED;

    public String optionValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final ConnectionSettings connection;
  private final TableRef table;
  private final WriteMethod method;
  private final int batchRows;
  private final long batchBytes;
  private final boolean truncate;
  private final boolean atomic;
  private final SqlDialect dialect;

  private FlightSqlWriteConfig(
      ConnectionSettings connection,
      TableRef table,
      WriteMethod method,
      int batchRows,
      long batchBytes,
      boolean truncate,
      boolean atomic,
      SqlDialect dialect) {
    this.connection = connection;
    this.table = table;
    this.method = method;
    this.batchRows = batchRows;
    this.batchBytes = batchBytes;
    this.truncate = truncate;
    this.atomic = atomic;
    this.dialect = dialect;
  }

  /**
   * Validates the options of a write.
   *
   * @throws IllegalArgumentException naming the option at fault and what it expects
   */
  public static FlightSqlWriteConfig from(Map<String, String> options) {
    OptionReader reader = OptionReader.of(options);
    ConnectionSettings connection = ConnectionOptions.from(reader);
    if (reader.optional(FlightSqlOptions.QUERY).isPresent()) {
      throw new IllegalArgumentException(
          "Option 'query' cannot be used to write; name the table to write with 'dbtable'");
    }
    Optional<String> dbtable = reader.optional(FlightSqlOptions.DBTABLE);
    if (!dbtable.isPresent()) {
      throw new IllegalArgumentException(
          "Option 'dbtable' is required to write: expected " + FlightSqlOptions.DBTABLE.form());
    }
    TableRef table;
    try {
      table =
          TableRef.parse(
              dbtable.get(),
              reader.optional(FlightSqlOptions.CATALOG).orElse(null),
              reader.optional(FlightSqlOptions.SCHEMA).orElse(null));
    } catch (IllegalArgumentException e) {
      throw OptionReader.invalid(FlightSqlOptions.DBTABLE, dbtable.get(), e.getMessage());
    }
    return new FlightSqlWriteConfig(
        connection,
        table,
        reader.choice(FlightSqlOptions.WRITE_METHOD, WriteMethod.class, WriteMethod.AUTO),
        (int) reader.positiveLong(FlightSqlOptions.BATCH_SIZE, Integer.MAX_VALUE),
        reader.positiveLong(FlightSqlOptions.BATCH_BYTES, Long.MAX_VALUE),
        reader.bool(FlightSqlOptions.TRUNCATE),
        reader.bool(FlightSqlOptions.ATOMIC),
        dialect(reader));
  }

  /** Option {@code dialect}: null for {@code auto}. */
  static SqlDialect dialect(OptionReader reader) {
    Optional<String> value = reader.optional(FlightSqlOptions.DIALECT);
    if (!value.isPresent() || value.get().equalsIgnoreCase("auto")) {
      return null;
    }
    for (SqlDialect d : SqlDialect.values()) {
      if (d.optionValue().equalsIgnoreCase(value.get())) {
        return d;
      }
    }
    throw OptionReader.invalid(FlightSqlOptions.DIALECT, value.get(), null);
  }

  /** The dialect the user chose, or empty for {@code auto}. */
  public Optional<SqlDialect> dialect() {
    return Optional.ofNullable(dialect);
  }

  public FlightUri uri() {
    return connection.uri();
  }

  /** How to reach the server, with credentials; never printed. */
  public ConnectionSettings connection() {
    return connection;
  }

  public TableRef table() {
    return table;
  }

  public WriteMethod method() {
    return method;
  }

  /** The most rows an Arrow batch holds. */
  public int batchRows() {
    return batchRows;
  }

  /** The most bytes (estimated) an Arrow batch holds. */
  public long batchBytes() {
    return batchBytes;
  }

  public boolean truncate() {
    return truncate;
  }

  public boolean atomic() {
    return atomic;
  }

  @Override
  public String toString() {
    return "FlightSqlWriteConfig{"
        + connection
        + ", table="
        + table
        + ", writeMethod="
        + method.optionValue()
        + ", batchSize="
        + batchRows
        + ", batchBytes="
        + batchBytes
        + ", truncate="
        + truncate
        + ", atomic="
        + atomic
        + ", dialect="
        + (dialect == null ? "auto" : dialect.optionValue())
        + "}";
  }
}
