package io.flightsql.spark.config;

import io.flightsql.spark.types.TypeMappingOptions.DecimalOverflow;
import io.flightsql.spark.types.TypeMappingOptions.Nanoseconds;
import java.time.Duration;
import java.util.List;

/**
 * The options of scope {@link OptionScope#READ}: what to read, how to map values Spark cannot hold
 * exactly, how to split the read, and what to push into the server's query.
 */
public final class ReadOptions {
  private ReadOptions() {}

  private static final OptionScope SCOPE = OptionScope.READ;

  private static final String BOUND_FORM =
      "a whole number, a date (`2024-01-01`) or a timestamp (`2024-01-01 12:00:00[.ffffff]`,"
          + " optionally with an offset), as the partition column's type";

  /** The values of option {@code statistics}. */
  public enum Statistics {
    FLIGHTINFO,
    PROBE,
    NONE
  }

  /** The values of option {@code mixedUnions}. */
  public enum MixedUnions {
    ERROR,
    STRING
  }

  public static final OptionSpec<String> QUERY =
      OptionTypes.text("query", "a SQL query in the server's dialect", SCOPE)
          .description(
              "The SQL query whose result is read. Exactly one of `query` and `dbtable` is"
                  + " required.");

  public static final OptionSpec<Duration> QUERY_TIMEOUT =
      OptionTypes.duration("queryTimeout", SCOPE)
          .description(
              "How long the server may take to plan the read's query (PollFlightInfo, or"
                  + " GetFlightInfo where the server does not poll), as JDBC's query timeout; none"
                  + " by default. Past it the query is cancelled on the server (CancelFlightInfo,"
                  + " or the cancellation of the GetFlightInfo call) and the read fails naming this"
                  + " option. Applies on the driver, and on executors to the query of each"
                  + " client-side partition (`partitionColumn`, `predicates`). Reading the results"
                  + " is not bounded by it. See docs/operations.md.");

  public static final OptionSpec<DecimalOverflow> DECIMAL_OVERFLOW =
      OptionTypes.choice(
              "decimalOverflow",
              SCOPE,
              DecimalOverflow.ERROR,
              DecimalOverflow.STRING,
              DecimalOverflow.NULL)
          .defaultValue(DecimalOverflow.ERROR)
          .description(
              "What to do with a decimal column wider than Spark's 38 digits (an Arrow"
                  + " decimal256, or a decimal with a negative scale that needs more digits)."
                  + " `error` refuses the column while planning; `string` reads it as a string"
                  + " holding each value's exact decimal text; `null` reads it as DECIMAL(38, s),"
                  + " with NULL for each value that does not fit. See docs/types.md.");

  public static final OptionSpec<Nanoseconds> NANOSECONDS =
      OptionTypes.choice("nanoseconds", SCOPE, Nanoseconds.TRUNCATE, Nanoseconds.ERROR)
          .defaultValue(Nanoseconds.TRUNCATE)
          .description(
              "What to do with timestamps, times, durations and intervals that carry"
                  + " nanoseconds, which Spark's microseconds cannot hold. `truncate` drops the"
                  + " digits below a microsecond, rounding towards the past; `error` fails the"
                  + " task at the first value that is not a whole microsecond.");

  public static final OptionSpec<MixedUnions> MIXED_UNIONS =
      OptionTypes.choice("mixedUnions", SCOPE, MixedUnions.ERROR, MixedUnions.STRING)
          .defaultValue(MixedUnions.ERROR)
          .description(
              "What to do with a union column whose members have different types (arrow-go's"
                  + " SQLite example sends one for every column without a declared type). `error`"
                  + " refuses the column while planning; `string` reads each value, of whichever"
                  + " member, as its text. A union whose members other than NULL share one type"
                  + " always reads as that type.");

  public static final OptionSpec<String> PARTITION_COLUMN =
      OptionTypes.text(
              "partitionColumn",
              "a column of the query's result, numeric, date or timestamp",
              SCOPE)
          .description(
              "Reads in parallel, as Spark's JDBC source does: the column whose range is split"
                  + " into `numPartitions` strides between `lowerBound` and `upperBound`, one"
                  + " Spark partition (and one query, with its own WHERE clause) each. The bounds"
                  + " only decide the stride, they filter nothing: the first partition also reads"
                  + " the values below `lowerBound` and NULLs, the last the values above"
                  + " `upperBound`. The four options go together, and exclude `predicates`."
                  + " Integral, decimal and floating-point columns take whole-number bounds. For"
                  + " servers that give one endpoint per query; see docs/pushdown.md.");

  /** Text here: its type is the partition column's, known only with the read's schema. */
  public static final OptionSpec<String> LOWER_BOUND =
      OptionTypes.text("lowerBound", BOUND_FORM, SCOPE)
          .description(
              "With `partitionColumn`: where the first stride ends its lower side. A timestamp"
                  + " without an offset is in the session time zone"
                  + " (`spark.sql.session.timeZone`).");

  /** Text here, as {@link #LOWER_BOUND}. */
  public static final OptionSpec<String> UPPER_BOUND =
      OptionTypes.text("upperBound", BOUND_FORM, SCOPE)
          .description(
              "With `partitionColumn`: where the last stride starts its upper side. Not smaller"
                  + " than `lowerBound`.");

  public static final OptionSpec<Integer> NUM_PARTITIONS =
      OptionTypes.positiveInt("numPartitions", "a positive integer", SCOPE)
          .description(
              "With `partitionColumn`: how many partitions to read. Reduced to `upperBound -"
                  + " lowerBound` (in days for dates, microseconds for timestamps) when the range"
                  + " is smaller; 1, or equal bounds, reads the query whole in one partition.");

  public static final OptionSpec<List<String>> PREDICATES =
      OptionTypes.custom(
              "predicates",
              "a JSON array of strings, each a SQL condition in the server's dialect, e.g."
                  + " `[\"region = 'EU'\", \"region <> 'EU' OR region IS NULL\"]`",
              SCOPE,
              JsonStringArray::conditions,
              JsonStringArray::write)
          .description(
              "Reads in parallel with one Spark partition per condition: each partition runs the"
                  + " query with its condition as a WHERE clause. As in Spark's JDBC source, the"
                  + " conditions are used as given: rows that match two of them are read twice,"
                  + " rows that match none are not read. Cannot be combined with"
                  + " `partitionColumn`.");

  public static final OptionSpec<Boolean> PUSH_DOWN_PREDICATE =
      OptionTypes.bool("pushDownPredicate", SCOPE)
          .defaultValue(true)
          .description(
              "`true` sends Spark's filters that the dialect can write to the server in the"
                  + " query's WHERE clause; the others stay in Spark. `false` filters every row in"
                  + " Spark.");

  public static final OptionSpec<Boolean> PUSH_DOWN_LIMIT =
      OptionTypes.bool("pushDownLimit", SCOPE)
          .defaultValue(true)
          .description(
              "`true` sends a LIMIT to the server, so that it returns only the rows Spark"
                  + " keeps.");

  public static final OptionSpec<Boolean> PUSH_DOWN_OFFSET =
      OptionTypes.bool("pushDownOffset", SCOPE)
          .defaultValue(true)
          .description(
              "`true` sends an OFFSET to the server, so that it skips the rows Spark would"
                  + " skip.");

  public static final OptionSpec<Boolean> PUSH_DOWN_TOP_N =
      OptionTypes.bool("pushDownTopN", SCOPE)
          .defaultValue(true)
          .description(
              "`true` sends an ORDER BY with a LIMIT to the server, so that it returns only the"
                  + " first rows in Spark's order. Spark still orders those rows again, since a"
                  + " server may split its answer into endpoints that it does not order among"
                  + " themselves.");

  public static final OptionSpec<Boolean> PUSH_DOWN_AGGREGATE =
      OptionTypes.bool("pushDownAggregate", SCOPE)
          .defaultValue(true)
          .description(
              "`true` sends COUNT, SUM, MIN, MAX and AVG with their GROUP BY columns to the"
                  + " server when all of a query's aggregates can be written. It needs no"
                  + " capability from the server beyond SQL: the connector asks the server for the"
                  + " aggregated query's schema first and pushes nothing when the server refuses"
                  + " it.");

  // The optimizer's options (statistics, runtime filters, joins and samples), docs/pushdown.md.

  public static final OptionSpec<Statistics> STATISTICS =
      OptionTypes.choice(
              "statistics", SCOPE, Statistics.FLIGHTINFO, Statistics.PROBE, Statistics.NONE)
          .defaultValue(Statistics.FLIGHTINFO)
          .description(
              "What the read tells Spark's optimizer of its size, which decides broadcast joins"
                  + " and runtime filters. `flightinfo` plans the read's query while Spark"
                  + " optimizes (the read's partitions then use that plan, so the query is not"
                  + " planned twice) and reports the rows and bytes the server gives with it"
                  + " (FlightInfo total_records and total_bytes), nothing where it gives none;"
                  + " a server seen to give none is not asked again for 10 minutes. `probe` also"
                  + " counts the rows of a query whose FlightInfo gives none, with a query that"
                  + " stops counting after `statisticsProbeRows` rows. `none` reports nothing and"
                  + " does not plan the query while Spark optimizes (Spark still has it planned"
                  + " once when it makes the physical plan, to count the partitions, for an"
                  + " EXPLAIN too). Never a guessed row count. See docs/pushdown.md.");

  public static final OptionSpec<Integer> STATISTICS_PROBE_ROWS =
      OptionTypes.positiveInt("statisticsProbeRows", "a positive integer", SCOPE)
          .defaultValue(100_000)
          .description(
              "With `statistics=probe`: the most rows the probe counts. A read with more rows"
                  + " reports no statistics.");

  public static final OptionSpec<Duration> UNREAD_PLAN_LIFETIME =
      OptionTypes.duration("unreadPlanLifetime", SCOPE)
          .defaultValue(Duration.ofMinutes(1))
          .description(
              "How long a plan of the read's query made while Spark plans (for `statistics`, or"
                  + " the partitions of an EXPLAIN) waits for the job that reads it. Past it the"
                  + " plan is cancelled on the server (CancelFlightInfo), which frees a result a"
                  + " server computed when it planned the query, and a read that comes later"
                  + " plans the query again. A plan Spark drops (a runtime filter that plans"
                  + " again) is cancelled at once. See docs/pushdown.md.");

  public static final OptionSpec<Boolean> KEEP_FILTERS_IN_SPARK =
      OptionTypes.bool("keepFiltersInSpark", SCOPE)
          .defaultValue(false)
          .description(
              "`true` leaves the filters pushed into this read in Spark's plan as well, where"
                  + " they are checked again on the rows the server sends. Spark filters a star"
                  + " join's fact table at run time only by a dimension whose plan shows a"
                  + " selective filter: set it on the dimension's read when the fact table is"
                  + " read with runtime filters (`pushDownRuntimeFilter`). Aggregates, limits and"
                  + " joins are then not pushed into this read. With"
                  + " `spark.sql.extensions=io.flightsql.spark.FlightSqlExtensions`, a filtered"
                  + " read right under a join gets `true` unless it sets the option itself.");

  public static final OptionSpec<Boolean> PUSH_DOWN_RUNTIME_FILTER =
      OptionTypes.bool("pushDownRuntimeFilter", SCOPE)
          .defaultValue(true)
          .description(
              "`true` lets Spark filter this read at run time by the keys a join found on its"
                  + " other side (dynamic pruning): the keys go into the query's WHERE clause as an"
                  + " IN list, or as the range from the smallest to the largest beyond"
                  + " `runtimeFilterMaxValues` values, and the query is planned again before its"
                  + " partitions are read. Only for reads without a pushed aggregate, limit,"
                  + " offset or top-N.");

  public static final OptionSpec<Integer> RUNTIME_FILTER_MAX_VALUES =
      OptionTypes.positiveInt("runtimeFilterMaxValues", "a positive integer", SCOPE)
          .defaultValue(1_000)
          .description(
              "The most values of a runtime filter's IN list; with more (or more than 100,000"
                  + " characters of them), the range from the smallest to the largest is sent"
                  + " instead.");

  public static final OptionSpec<Boolean> PUSH_DOWN_JOIN =
      OptionTypes.bool("pushDownJoin", SCOPE)
          .defaultValue(true)
          .description(
              "On Spark 4.1 and later, with `spark.sql.optimizer.datasourceV2JoinPushdown`:"
                  + " `true` lets the server join two reads of the same server with the same"
                  + " connection options (inner, left and right joins on conditions the dialect"
                  + " can write), so that only the join's result crosses the wire. Both reads must"
                  + " allow it.");

  public static final OptionSpec<Boolean> PUSH_DOWN_TABLE_SAMPLE =
      OptionTypes.bool("pushDownTableSample", SCOPE)
          .defaultValue(true)
          .description(
              "`true` sends `df.sample(fraction)` of a `dbtable` read to the server as its"
                  + " sampling clause where the dialect has one (DuckDB, Spark SQL): the server"
                  + " picks the rows, each with the same chance.");
}
