package io.flightsql.spark.config;

import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.upload.UploadCompression;
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

  /** Whether a failed job may change the table (option {@code atomic}). */
  public enum Atomic {
    /** Staged, in one transaction where the server has transactions, else by statements. */
    AUTO,
    /** Staged in one transaction; a server without transactions is refused. */
    TRUE,
    /** Tasks write into the table directly. */
    FALSE;

    public String optionValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final ConnectionSettings connection;
  private final TableRef table;
  private final WriteMethod method;
  private final int batchRows;
  private final long batchBytes;
  private final UploadCompression compression;
  private final boolean truncate;
  private final Atomic atomic;
  private final String dialect;

  private FlightSqlWriteConfig(
      ConnectionSettings connection,
      TableRef table,
      WriteMethod method,
      int batchRows,
      long batchBytes,
      UploadCompression compression,
      boolean truncate,
      Atomic atomic,
      String dialect) {
    this.connection = connection;
    this.table = table;
    this.method = method;
    this.batchRows = batchRows;
    this.batchBytes = batchBytes;
    this.compression = compression;
    this.truncate = truncate;
    this.atomic = atomic;
    this.dialect = dialect;
  }

  /**
   * Validates the options of a write, all sources already merged ({@link OptionSources}); logs a
   * warning for each option it does not know ({@link UnknownOptions}).
   *
   * @throws IllegalArgumentException naming the option at fault and what it expects
   */
  public static FlightSqlWriteConfig from(Map<String, String> options) {
    UnknownOptions.warn(options);
    OptionReader reader = OptionReader.of(options);
    ConnectionSettings connection = ConnectionSettingsReader.from(reader);
    if (reader.given(ReadOptions.QUERY).isPresent()) {
      throw new IllegalArgumentException(
          "Option 'query' cannot be used to write; name the table to write with 'dbtable'");
    }
    Optional<String> dbtable = reader.given(ReadWriteOptions.DBTABLE);
    if (!dbtable.isPresent()) {
      throw new IllegalArgumentException(
          "Option 'dbtable' is required to write: expected " + ReadWriteOptions.DBTABLE.form());
    }
    TableRef table;
    try {
      table =
          TableRef.parse(
              dbtable.get(),
              reader.given(ReadWriteOptions.CATALOG).orElse(null),
              reader.given(ReadWriteOptions.SCHEMA).orElse(null));
    } catch (IllegalArgumentException e) {
      throw ReadWriteOptions.DBTABLE.invalid(dbtable.get(), e.getMessage());
    }
    return new FlightSqlWriteConfig(
        connection,
        table,
        reader.value(WriteOptions.WRITE_METHOD),
        reader.value(WriteOptions.BATCH_SIZE),
        reader.value(WriteOptions.BATCH_BYTES),
        reader.value(WriteOptions.COMPRESSION),
        reader.value(WriteOptions.TRUNCATE),
        reader.value(WriteOptions.ATOMIC),
        dialect(reader));
  }

  /** Option {@code dialect}, lower case: null for {@code auto}. */
  static String dialect(OptionReader reader) {
    String name = reader.value(ReadWriteOptions.DIALECT);
    return name.equals(ReadWriteOptions.AUTO_DIALECT) ? null : name;
  }

  /**
   * The dialect the user chose, by its lower-case name (one of {@link ReadWriteOptions#DIALECT}'s
   * allowed values), or empty for {@code auto}.
   */
  public Optional<String> dialect() {
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

  /** How the batches travel: compressed or not (option {@code compression}). */
  public UploadCompression compression() {
    return compression;
  }

  public boolean truncate() {
    return truncate;
  }

  public Atomic atomic() {
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
        + ", compression="
        + compression.name().toLowerCase(Locale.ROOT)
        + ", truncate="
        + truncate
        + ", atomic="
        + atomic.optionValue()
        + ", dialect="
        + (dialect == null ? ReadWriteOptions.AUTO_DIALECT : dialect)
        + "}";
  }
}
