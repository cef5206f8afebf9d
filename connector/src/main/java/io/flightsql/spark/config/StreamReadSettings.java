package io.flightsql.spark.config;

import java.io.Serializable;
import java.util.Optional;

/**
 * The options of a streaming read ({@link StreamOptions}, scope {@link OptionScope#STREAM_READ}),
 * read with the other options of every read and used only when Spark reads the source as a stream.
 * The values whose form is the offset column's type stay text until that type is known. Immutable.
 */
public final class StreamReadSettings implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String offsetColumn;
  private final String startingOffsets;
  private final Integer maxRowsPerTrigger;
  private final String offsetLag;

  private StreamReadSettings(
      String offsetColumn, String startingOffsets, Integer maxRowsPerTrigger, String offsetLag) {
    this.offsetColumn = offsetColumn;
    this.startingOffsets = startingOffsets;
    this.maxRowsPerTrigger = maxRowsPerTrigger;
    this.offsetLag = offsetLag;
  }

  /**
   * @throws IllegalArgumentException naming the option whose value has not the expected form
   */
  static StreamReadSettings from(OptionReader reader) {
    return new StreamReadSettings(
        reader.given(StreamOptions.OFFSET_COLUMN).orElse(null),
        reader.value(StreamOptions.STARTING_OFFSETS),
        reader.optional(StreamOptions.MAX_ROWS_PER_TRIGGER).orElse(null),
        reader.given(StreamOptions.OFFSET_LAG).orElse(null));
  }

  /** Option {@code offsetColumn}, as given. */
  public Optional<String> offsetColumn() {
    return Optional.ofNullable(offsetColumn);
  }

  /** Option {@code startingOffsets}: {@code earliest}, {@code latest} or a value, as given. */
  public String startingOffsets() {
    return startingOffsets;
  }

  /** Option {@code maxRowsPerTrigger}; empty for no limit. */
  public Optional<Integer> maxRowsPerTrigger() {
    return Optional.ofNullable(maxRowsPerTrigger);
  }

  /** Option {@code offsetLag}, as given; empty for none. */
  public Optional<String> offsetLag() {
    return Optional.ofNullable(offsetLag);
  }

  @Override
  public String toString() {
    return "offsetColumn="
        + offsetColumn
        + ", startingOffsets="
        + startingOffsets
        + ", maxRowsPerTrigger="
        + maxRowsPerTrigger
        + ", offsetLag="
        + offsetLag;
  }
}
