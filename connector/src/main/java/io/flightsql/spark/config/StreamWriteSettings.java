package io.flightsql.spark.config;

import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.config.StreamOptions.ExactlyOnce;
import java.util.Map;

/**
 * The options of a streaming write ({@link StreamOptions}, scope {@link OptionScope#STREAM_WRITE}):
 * what it promises, and where it keeps its markers. The rest of a streaming write's options are a
 * write's ({@link FlightSqlWriteConfig}). Immutable; driver only.
 */
public final class StreamWriteSettings {
  private final ExactlyOnce exactlyOnce;
  private final TableRef markerTable;

  private StreamWriteSettings(ExactlyOnce exactlyOnce, TableRef markerTable) {
    this.exactlyOnce = exactlyOnce;
    this.markerTable = markerTable;
  }

  /**
   * Validates the streaming options among {@code options}, all sources already merged ({@link
   * OptionSources}).
   *
   * @throws IllegalArgumentException naming the option at fault and what it expects
   */
  public static StreamWriteSettings from(Map<String, String> options) {
    OptionReader reader = OptionReader.of(options);
    String marker = reader.value(StreamOptions.MARKER_TABLE);
    TableRef markerTable;
    try {
      markerTable =
          TableRef.parse(
              marker,
              reader.given(ReadWriteOptions.CATALOG).orElse(null),
              reader.given(ReadWriteOptions.SCHEMA).orElse(null));
    } catch (IllegalArgumentException e) {
      throw StreamOptions.MARKER_TABLE.invalid(marker, e.getMessage());
    }
    return new StreamWriteSettings(reader.value(StreamOptions.EXACTLY_ONCE), markerTable);
  }

  public ExactlyOnce exactlyOnce() {
    return exactlyOnce;
  }

  /** The table of the markers, qualified with options {@code catalog} and {@code schema}. */
  public TableRef markerTable() {
    return markerTable;
  }
}
