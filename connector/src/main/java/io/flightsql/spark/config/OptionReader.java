package io.flightsql.spark.config;

import io.flightsql.spark.client.FlightUri;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Reads options from the case-insensitive map Spark hands to a data source, with errors that name
 * the option, the value it got and the form it expected.
 */
public final class OptionReader {
  private final Map<String, String> options;

  private OptionReader(Map<String, String> options) {
    this.options = options;
  }

  /** Wraps a map whose keys may be in any case (Spark's maps already are case-insensitive). */
  public static OptionReader of(Map<String, String> options) {
    Map<String, String> lowered = new HashMap<>();
    options.forEach((k, v) -> lowered.put(k.toLowerCase(Locale.ROOT), v));
    return new OptionReader(lowered);
  }

  /** The value, trimmed, or empty when the option is absent or blank. */
  public Optional<String> optional(OptionSpec spec) {
    String value = options.get(spec.name().toLowerCase(Locale.ROOT));
    if (value == null || value.trim().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(value.trim());
  }

  public String required(OptionSpec spec) {
    return optional(spec)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "Option '" + spec.name() + "' is required: expected " + spec.form()));
  }

  /**
   * The value of an option that takes one of an enum's constants, written in any case; the
   * default when absent.
   */
  public <E extends Enum<E>> E choice(OptionSpec spec, Class<E> type, E defaultValue) {
    Optional<String> value = optional(spec);
    if (!value.isPresent()) {
      return defaultValue;
    }
    for (E constant : type.getEnumConstants()) {
      if (constant.name().equalsIgnoreCase(value.get())) {
        return constant;
      }
    }
    throw invalid(spec, value.get(), null);
  }

  /** The server of option {@code uri}, which every read and write needs. */
  public FlightUri uri() {
    String text = required(FlightSqlOptions.URI);
    try {
      return FlightUri.parse(text);
    } catch (IllegalArgumentException e) {
      throw invalid(FlightSqlOptions.URI, text, e.getMessage());
    }
  }

  /** A strict {@code true} or {@code false} (any case); the option's default when absent. */
  public boolean bool(OptionSpec spec) {
    Optional<String> value = optional(spec);
    String text = value.orElse(spec.defaultValue());
    if ("true".equalsIgnoreCase(text)) {
      return true;
    }
    if ("false".equalsIgnoreCase(text)) {
      return false;
    }
    throw invalid(spec, text, null);
  }

  /** A whole number from 1 to {@code max}; the option's default when absent. */
  public long positiveLong(OptionSpec spec, long max) {
    String text = optional(spec).orElse(spec.defaultValue());
    long value;
    try {
      value = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw invalid(spec, text, null);
    }
    if (value < 1 || value > max) {
      throw invalid(spec, text, "at most " + max);
    }
    return value;
  }

  /** The error for a value that does not have the option's form; never shows a secret value. */
  public static IllegalArgumentException invalid(OptionSpec spec, String value, String why) {
    String shown = spec.isSecret() ? "*****" : FlightUri.redact(value);
    String reason = why == null ? "" : " (" + why + ")";
    return new IllegalArgumentException(
        "Invalid value '"
            + shown
            + "' for option '"
            + spec.name()
            + "': expected "
            + spec.form()
            + reason);
  }
}
