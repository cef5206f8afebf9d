package io.flightsql.spark.config;

import java.time.Duration;
import java.util.Locale;

/**
 * The options of Structured Streaming: of scope {@link OptionScope#STREAM_READ}, what a stream
 * reads as new rows and how many at a time ({@code spark.readStream.format("flightsql")}); of scope
 * {@link OptionScope#STREAM_WRITE}, what a streaming sink promises ({@code
 * df.writeStream.format("flightsql")}). The values whose form depends on the offset column's type
 * are kept as text here: the type is known only with the source's schema.
 */
public final class StreamOptions {
  private StreamOptions() {}

  private static final OptionScope READ = OptionScope.STREAM_READ;
  private static final OptionScope WRITE = OptionScope.STREAM_WRITE;

  /** The value of option {@code startingOffsets} that starts before every row. */
  public static final String EARLIEST = "earliest";

  /** The value of option {@code startingOffsets} that starts after the rows there are now. */
  public static final String LATEST = "latest";

  /** The values of option {@code exactlyOnce}. */
  public enum ExactlyOnce {
    /** Exactly once where the server has transactions, else at least once with a warning. */
    AUTO,
    /** Exactly once, or the query does not start. */
    TRUE,
    /** At least once: no marker table, a replayed epoch is written again. */
    FALSE;

    public String optionValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public static final OptionSpec<String> OFFSET_COLUMN =
      OptionTypes.text(
              "offsetColumn",
              "a column of the source: integer, decimal, date or timestamp, whose value only grows"
                  + " as rows are added",
              READ)
          .description(
              "Required to read a stream. The column whose high-water mark is the stream's offset"
                  + " (a sequence, an ingestion timestamp): each micro-batch reads the rows with"
                  + " `offsetColumn > start AND offsetColumn <= end`, where the end is the largest"
                  + " value at the time the batch was planned. Rows committed later with a value at"
                  + " or below a mark already read are never seen, nor are rows whose value is"
                  + " NULL; see `offsetLag` and docs/streaming.md.");

  public static final OptionSpec<String> STARTING_OFFSETS =
      OptionTypes.text(
              "startingOffsets",
              "`earliest`, `latest`, or a value of the offset column: a whole number, a decimal, a"
                  + " date (`2024-01-01`) or a timestamp (`2024-01-01 12:00:00[.ffffff]`,"
                  + " optionally with an offset)",
              READ)
          .defaultValue(EARLIEST)
          .description(
              "Where a new streaming query starts: `earliest` reads every row, `latest` only the"
                  + " rows added after it started, and a value the rows whose `offsetColumn` is"
                  + " above it. A timestamp without an offset is in the session time zone. Only"
                  + " for a query without a checkpoint: a restarted query resumes where its last"
                  + " committed micro-batch ended.");

  public static final OptionSpec<Integer> MAX_ROWS_PER_TRIGGER =
      OptionTypes.positiveInt("maxRowsPerTrigger", "a positive number of rows", READ)
          .description(
              "The most rows one micro-batch reads (Spark's admission control), found with one"
                  + " query bounded by `queryTimeout`. Rows sharing one value of `offsetColumn` are"
                  + " never split between micro-batches: a batch ends before such a group when"
                  + " taking it would pass the limit, and a group that alone exceeds it is read"
                  + " whole, in one batch. No limit by default; `Trigger.Once` ignores it, as"
                  + " Spark does.");

  public static final OptionSpec<String> OFFSET_LAG =
      OptionTypes.text(
              "offsetLag",
              "a duration such as `30s`, `5m` or `2h` for a timestamp offset column, whole days"
                  + " (`24h`, `48h`) for a date, or a non-negative number for a numeric one",
              READ)
          .description(
              "Reads only up to the newest value of `offsetColumn` minus this lag, leaving the"
                  + " newest rows for a later batch: for rows whose offset is set before they are"
                  + " committed (an ingestion timestamp taken at the start of a slow transaction),"
                  + " which could otherwise be committed below a mark already read and never be"
                  + " seen. None by default.");

  /**
   * Option {@code offsetLag} as a duration, for a date or timestamp offset column: the form of the
   * connector's other durations.
   *
   * @throws IllegalArgumentException when the text is not a duration above zero
   */
  public static Duration lag(String text) {
    return OptionTypes.duration(text.trim());
  }

  public static final OptionSpec<ExactlyOnce> EXACTLY_ONCE =
      OptionTypes.choice("exactlyOnce", WRITE, ExactlyOnce.values())
          .defaultValue(ExactlyOnce.AUTO)
          .description(
              "What a streaming write promises when Spark runs a micro-batch (epoch) again after"
                  + " a failure or a restart. `auto`: exactly once where the server has"
                  + " transactions, each epoch's rows committing in one transaction with a marker"
                  + " (query id, epoch id) in `markerTable`, so that an epoch already committed"
                  + " writes nothing; at least once where it has none, which the query's log says"
                  + " when it starts. `true` refuses to start where exactly once is not possible"
                  + " (no transactions, or `atomic` set to `false`). `false` keeps no marker: a"
                  + " replayed epoch is written again. See docs/streaming.md.");

  public static final OptionSpec<String> MARKER_TABLE =
      OptionTypes.text(
              "markerTable",
              "a table name: `name`, `schema.name` or `catalog.schema.name`, each part optionally"
                  + " in double quotes",
              WRITE)
          .defaultValue("flightsql_stream_commits")
          .description(
              "The table where streaming writes record the epochs each query committed, a row"
                  + " (`query_id`, `epoch_id`, `table_name`) per epoch, added in the epoch's"
                  + " transaction; a query keeps the rows of its last 100 epochs. Created when"
                  + " missing, in `catalog` and `schema` unless the name says otherwise. Shared by"
                  + " every query that writes to the server; a query's rows can be deleted once"
                  + " it is gone for good.");
}
