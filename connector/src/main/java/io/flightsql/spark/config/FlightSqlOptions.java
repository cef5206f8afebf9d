package io.flightsql.spark.config;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The registry of every option the connector understands, declared by scope in {@link
 * ConnectionOptions}, {@link ReadOptions}, {@link WriteOptions}, {@link ReadWriteOptions} and
 * {@link StreamOptions} and listed here in documentation order. {@code docs/configuration.md} is
 * generated from this list (by a test, {@code ConfigurationDocsTest}, that also keeps the committed
 * file equal to it), and {@link UnknownOptions} warns of any name outside it.
 *
 * <p>Where the values come from, and which source wins, is {@link OptionSources}' business.
 */
public final class FlightSqlOptions {
  /**
   * Options Spark itself adds, or takes from the same map ({@code checkpointLocation} of a
   * streaming write): known, not documented.
   */
  private static final Set<String> PASSED_THROUGH =
      Collections.unmodifiableSet(
          new TreeSet<>(Arrays.asList("path", "paths", "checkpointlocation")));

  private static final List<OptionSpec<?>> ALL =
      Collections.unmodifiableList(
          Arrays.asList(
              ConnectionOptions.URI,
              ConnectionOptions.USERNAME,
              ConnectionOptions.PASSWORD,
              ConnectionOptions.PASSWORD_ENV,
              ConnectionOptions.PASSWORD_FILE,
              ConnectionOptions.TOKEN,
              ConnectionOptions.TOKEN_ENV,
              ConnectionOptions.TOKEN_FILE,
              ConnectionOptions.TLS_ROOT_CERTS,
              ConnectionOptions.DISABLE_CERTIFICATE_VERIFICATION,
              ConnectionOptions.CLIENT_CERTIFICATE,
              ConnectionOptions.CLIENT_KEY,
              ConnectionOptions.HEADER,
              ConnectionOptions.CONNECT_TIMEOUT,
              ConnectionOptions.CALL_TIMEOUT,
              ReadWriteOptions.STREAM_IDLE_TIMEOUT,
              ConnectionOptions.KEEP_ALIVE_TIME,
              ConnectionOptions.MAX_RETRIES,
              ConnectionOptions.MAX_INBOUND_MESSAGE_SIZE,
              ConnectionOptions.TASK_MEMORY_LIMIT,
              ConnectionOptions.CREDENTIAL_HOSTS,
              ConnectionOptions.ALLOW_INSECURE_LOCATIONS,
              ReadOptions.QUERY,
              ReadWriteOptions.DBTABLE,
              ReadOptions.QUERY_TIMEOUT,
              ReadOptions.DECIMAL_OVERFLOW,
              ReadOptions.NANOSECONDS,
              ReadOptions.MIXED_UNIONS,
              ReadOptions.PARTITION_COLUMN,
              ReadOptions.LOWER_BOUND,
              ReadOptions.UPPER_BOUND,
              ReadOptions.NUM_PARTITIONS,
              ReadOptions.PREDICATES,
              ReadWriteOptions.CATALOG,
              ReadWriteOptions.SCHEMA,
              WriteOptions.WRITE_METHOD,
              WriteOptions.BATCH_SIZE,
              WriteOptions.BATCH_BYTES,
              WriteOptions.COMPRESSION,
              WriteOptions.TRUNCATE,
              WriteOptions.ATOMIC,
              ReadWriteOptions.DIALECT,
              ReadOptions.PUSH_DOWN_PREDICATE,
              ReadOptions.PUSH_DOWN_LIMIT,
              ReadOptions.PUSH_DOWN_OFFSET,
              ReadOptions.PUSH_DOWN_TOP_N,
              ReadOptions.PUSH_DOWN_AGGREGATE,
              ReadOptions.STATISTICS,
              ReadOptions.STATISTICS_PROBE_ROWS,
              ReadOptions.UNREAD_PLAN_LIFETIME,
              ReadOptions.PUSH_DOWN_RUNTIME_FILTER,
              ReadOptions.RUNTIME_FILTER_MAX_VALUES,
              ReadOptions.KEEP_FILTERS_IN_SPARK,
              ReadOptions.PUSH_DOWN_JOIN,
              ReadOptions.PUSH_DOWN_TABLE_SAMPLE,
              // Streams
              StreamOptions.OFFSET_COLUMN,
              StreamOptions.STARTING_OFFSETS,
              StreamOptions.MAX_ROWS_PER_TRIGGER,
              StreamOptions.OFFSET_LAG,
              StreamOptions.EXACTLY_ONCE,
              StreamOptions.MARKER_TABLE));

  /** The options with one name, by that name in lower case. */
  private static final Map<String, OptionSpec<?>> BY_NAME = new HashMap<>();

  static {
    for (OptionSpec<?> spec : ALL) {
      if (!spec.prefix().isPresent()
          && BY_NAME.put(spec.name().toLowerCase(Locale.ROOT), spec) != null) {
        throw new IllegalStateException("Option '" + spec.name() + "' is declared twice");
      }
    }
  }

  private FlightSqlOptions() {}

  /** Every option, in documentation order. */
  public static List<OptionSpec<?>> all() {
    return ALL;
  }

  /**
   * The option of that name, matched case-insensitively; a name under a prefix, such as {@code
   * header.x-tenant}, finds its family ({@code header.<name>}).
   */
  public static Optional<OptionSpec<?>> find(String name) {
    String lowered = name.toLowerCase(Locale.ROOT);
    OptionSpec<?> exact = BY_NAME.get(lowered);
    if (exact != null) {
      return Optional.of(exact);
    }
    for (OptionSpec<?> spec : ALL) {
      Optional<String> prefix = spec.prefix();
      if (prefix.isPresent()
          && lowered.startsWith(prefix.get())
          && lowered.length() > prefix.get().length()) {
        return Optional.of(spec);
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the connector knows the name: one of its options, or a name Spark passes along with
   * them ({@code path}, {@code paths}).
   */
  public static boolean isKnown(String name) {
    return find(name).isPresent() || PASSED_THROUGH.contains(name.toLowerCase(Locale.ROOT));
  }
}
