package io.flightsql.spark.config;

import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.types.TypeMappingOptions;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The validated options of one read, built once on the driver and shipped to executors with each
 * partition. Immutable. Its connection settings hold secrets, which {@link #toString()} does not
 * show.
 */
public final class FlightSqlReadConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  private final ConnectionSettings connection;
  private final String query;
  private final String table;
  private final TypeMappingOptions typeOptions;
  private final ReadPartitioning partitioning;
  private final String dialect;
  private final boolean pushDownPredicate;
  private final boolean pushDownLimit;
  private final boolean pushDownOffset;
  private final boolean pushDownTopN;
  private final boolean pushDownAggregate;
  private final Duration queryTimeout;
  private final Optimizer optimizer;
  private final StreamReadSettings stream;

  private FlightSqlReadConfig(
      ConnectionSettings connection,
      String query,
      String table,
      TypeMappingOptions typeOptions,
      OptionReader reader) {
    this.connection = connection;
    this.query = query;
    this.table = table;
    this.typeOptions = typeOptions;
    this.partitioning = ReadPartitioning.from(reader);
    this.dialect = FlightSqlWriteConfig.dialect(reader);
    this.pushDownPredicate = reader.value(ReadOptions.PUSH_DOWN_PREDICATE);
    this.pushDownLimit = reader.value(ReadOptions.PUSH_DOWN_LIMIT);
    this.pushDownOffset = reader.value(ReadOptions.PUSH_DOWN_OFFSET);
    this.pushDownTopN = reader.value(ReadOptions.PUSH_DOWN_TOP_N);
    this.pushDownAggregate = reader.value(ReadOptions.PUSH_DOWN_AGGREGATE);
    this.queryTimeout = reader.optional(ReadOptions.QUERY_TIMEOUT).orElse(null);
    this.optimizer = new Optimizer(reader);
    this.stream = StreamReadSettings.from(reader);
  }

  /**
   * Validates the options of a read, all sources already merged ({@link OptionSources}); logs a
   * warning for each option it does not know ({@link UnknownOptions}).
   *
   * @throws IllegalArgumentException naming the option at fault and what it expects
   */
  public static FlightSqlReadConfig from(Map<String, String> options) {
    UnknownOptions.warn(options);
    OptionReader reader = OptionReader.of(options);
    ConnectionSettings connection = ConnectionSettingsReader.from(reader);
    Optional<String> query = reader.given(ReadOptions.QUERY);
    Optional<String> table = reader.given(ReadWriteOptions.DBTABLE);
    if (query.isPresent() && table.isPresent()) {
      throw new IllegalArgumentException(
          "Options 'dbtable' and 'query' cannot be used together; use 'query' for ad-hoc SQL"
              + " or 'dbtable' to read a whole table");
    }
    TypeMappingOptions typeOptions =
        TypeMappingOptions.of(
                reader.value(ReadOptions.DECIMAL_OVERFLOW), reader.value(ReadOptions.NANOSECONDS))
            .withMixedUnionsAsText(
                reader.value(ReadOptions.MIXED_UNIONS) == ReadOptions.MixedUnions.STRING);
    if (table.isPresent()) {
      return new FlightSqlReadConfig(
          connection, "SELECT * FROM " + table.get(), table.get(), typeOptions, reader);
    }
    if (query.isPresent()) {
      return new FlightSqlReadConfig(
          connection, stripTrailingSemicolons(query.get()), null, typeOptions, reader);
    }
    throw new IllegalArgumentException(
        "One of options 'query' or 'dbtable' is required: 'query' for a SQL query, 'dbtable'"
            + " for a table name");
  }

  private static String stripTrailingSemicolons(String sql) {
    String s = sql.trim();
    while (s.endsWith(";")) {
      s = s.substring(0, s.length() - 1).trim();
    }
    return s;
  }

  public FlightUri uri() {
    return connection.uri();
  }

  /** How to reach the server, with credentials; never printed. */
  public ConnectionSettings connection() {
    return connection;
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

  /**
   * The dialect option {@code dialect} names, in lower case (one of {@link
   * ReadWriteOptions#DIALECT}'s allowed values), or empty for {@code auto}.
   */
  public Optional<String> dialect() {
    return Optional.ofNullable(dialect);
  }

  public boolean pushDownPredicate() {
    return pushDownPredicate;
  }

  public boolean pushDownLimit() {
    return pushDownLimit;
  }

  public boolean pushDownOffset() {
    return pushDownOffset;
  }

  public boolean pushDownTopN() {
    return pushDownTopN;
  }

  public boolean pushDownAggregate() {
    return pushDownAggregate;
  }

  /** Option {@code queryTimeout}: the bound of planning the query; empty for none. */
  public Optional<Duration> queryTimeout() {
    return Optional.ofNullable(queryTimeout);
  }

  /** The options of a streaming read of this source ({@link StreamOptions}). */
  public StreamReadSettings stream() {
    return stream;
  }

  /** What the read offers Spark's optimizer: statistics, runtime filters, joins, samples. */
  public Optimizer optimizer() {
    return optimizer;
  }

  /**
   * Whether a join of this read with {@code other} may run on the server: both allow it, and both
   * reach the same server as the same user with the same session defaults, dialect option and type
   * mapping, so that one query over both reads what each would read alone.
   */
  public boolean joinableWith(FlightSqlReadConfig other) {
    return optimizer.pushDownJoin
        && other.optimizer.pushDownJoin
        && connection.sameIdentity(other.connection)
        && Objects.equals(connection.catalog(), other.connection.catalog())
        && Objects.equals(connection.schema(), other.connection.schema())
        && Objects.equals(dialect, other.dialect)
        && typeOptions.equals(other.typeOptions)
        && Objects.equals(queryTimeout, other.queryTimeout);
  }

  /**
   * The read options of Spark's optimizer (docs/pushdown.md): statistics, runtime filters, joins
   * and samples. Immutable.
   */
  public static final class Optimizer implements Serializable {
    private static final long serialVersionUID = 1L;

    private final ReadOptions.Statistics statistics;
    private final int statisticsProbeRows;
    private final Duration unreadPlanLifetime;
    private final boolean keepFiltersInSpark;
    private final boolean pushDownRuntimeFilter;
    private final int runtimeFilterMaxValues;
    private final boolean pushDownJoin;
    private final boolean pushDownTableSample;

    private Optimizer(OptionReader reader) {
      this.statistics = reader.value(ReadOptions.STATISTICS);
      this.statisticsProbeRows = reader.value(ReadOptions.STATISTICS_PROBE_ROWS);
      this.unreadPlanLifetime = reader.value(ReadOptions.UNREAD_PLAN_LIFETIME);
      this.keepFiltersInSpark = reader.value(ReadOptions.KEEP_FILTERS_IN_SPARK);
      this.pushDownRuntimeFilter = reader.value(ReadOptions.PUSH_DOWN_RUNTIME_FILTER);
      this.runtimeFilterMaxValues = reader.value(ReadOptions.RUNTIME_FILTER_MAX_VALUES);
      this.pushDownJoin = reader.value(ReadOptions.PUSH_DOWN_JOIN);
      this.pushDownTableSample = reader.value(ReadOptions.PUSH_DOWN_TABLE_SAMPLE);
    }

    /** Option {@code statistics}. */
    public ReadOptions.Statistics statistics() {
      return statistics;
    }

    /** Option {@code statisticsProbeRows}. */
    public int statisticsProbeRows() {
      return statisticsProbeRows;
    }

    /** Option {@code unreadPlanLifetime}. */
    public Duration unreadPlanLifetime() {
      return unreadPlanLifetime;
    }

    /** Option {@code keepFiltersInSpark}. */
    public boolean keepFiltersInSpark() {
      return keepFiltersInSpark;
    }

    /** Option {@code pushDownRuntimeFilter}. */
    public boolean pushDownRuntimeFilter() {
      return pushDownRuntimeFilter;
    }

    /** Option {@code runtimeFilterMaxValues}. */
    public int runtimeFilterMaxValues() {
      return runtimeFilterMaxValues;
    }

    /** Option {@code pushDownJoin}. */
    public boolean pushDownJoin() {
      return pushDownJoin;
    }

    /** Option {@code pushDownTableSample}. */
    public boolean pushDownTableSample() {
      return pushDownTableSample;
    }
  }

  /** A short name for plans and the Spark UI: the table, or the query. */
  public String displayName() {
    return table != null ? table : query;
  }

  @Override
  public String toString() {
    return "FlightSqlReadConfig{"
        + connection
        + ", query="
        + query
        + ", "
        + typeOptions
        + ", "
        + partitioning
        + "}";
  }
}
