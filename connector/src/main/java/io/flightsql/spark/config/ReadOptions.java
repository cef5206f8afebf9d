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
}
