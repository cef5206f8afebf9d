package io.flightsql.spark.config;

import io.flightsql.spark.client.FlightUri;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads options from the case-insensitive map Spark hands to a data source, with errors that name
 * the option, the value it got and the form it expected.
 */
public final class OptionReader {
  private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h)");

  private final Map<String, String> options;
  private final Function<String, String> environment;

  private OptionReader(Map<String, String> options, Function<String, String> environment) {
    this.options = options;
    this.environment = environment;
  }

  /** Wraps a map whose keys may be in any case (Spark's maps already are case-insensitive). */
  public static OptionReader of(Map<String, String> options) {
    return of(options, System::getenv);
  }

  /** As {@link #of(Map)}, with the environment variables of options {@code *Env} from a map. */
  static OptionReader of(Map<String, String> options, Function<String, String> environment) {
    Map<String, String> lowered = new HashMap<>();
    options.forEach((k, v) -> lowered.put(k.toLowerCase(Locale.ROOT), v));
    return new OptionReader(lowered, environment);
  }

  /**
   * The options whose names start with {@code prefix} (e.g. {@code header.}), by the rest of their
   * names (lower case), with their values untrimmed.
   */
  public Map<String, String> withPrefix(String prefix) {
    Map<String, String> out = new TreeMap<>();
    String lowered = prefix.toLowerCase(Locale.ROOT);
    options.forEach(
        (k, v) -> {
          if (k.startsWith(lowered) && v != null) {
            out.put(k.substring(lowered.length()), v);
          }
        });
    return out;
  }

  /**
   * A duration such as {@code 500ms}, {@code 30s}, {@code 2m} or {@code 1h}, in milliseconds; the
   * option's default when absent, or empty when it has none.
   */
  public Optional<Long> durationMillis(OptionSpec spec) {
    Optional<String> text = optional(spec);
    if (!text.isPresent() && spec.defaultValue() == null) {
      return Optional.empty();
    }
    String value = text.orElse(spec.defaultValue());
    Matcher m = DURATION.matcher(value.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw invalid(spec, value, null);
    }
    long amount = Long.parseLong(m.group(1));
    long unit;
    switch (m.group(2)) {
      case "ms":
        unit = 1L;
        break;
      case "s":
        unit = 1_000L;
        break;
      case "m":
        unit = 60_000L;
        break;
      default:
        unit = 3_600_000L;
        break;
    }
    if (amount == 0) {
      throw invalid(spec, value, "a duration above zero");
    }
    return Optional.of(amount * unit);
  }

  /**
   * A secret given directly, by the name of an environment variable of the driver, or by a file
   * read on the driver; at most one of the three.
   *
   * @throws IllegalArgumentException when more than one is given, the variable is not set or the
   *     file cannot be read; the message never holds the secret
   */
  public Optional<String> secret(OptionSpec direct, OptionSpec env, OptionSpec file) {
    Optional<String> value = optional(direct);
    Optional<String> variable = optional(env);
    Optional<String> path = optional(file);
    int given =
        (value.isPresent() ? 1 : 0) + (variable.isPresent() ? 1 : 0) + (path.isPresent() ? 1 : 0);
    if (given > 1) {
      throw new IllegalArgumentException(
          "Options '"
              + direct.name()
              + "', '"
              + env.name()
              + "' and '"
              + file.name()
              + "' are different ways to give the same secret; use only one of them (got "
              + (value.isPresent() ? "'" + direct.name() + "' " : "")
              + (variable.isPresent() ? "'" + env.name() + "' " : "")
              + (path.isPresent() ? "'" + file.name() + "'" : "").trim()
              + ")");
    }
    if (variable.isPresent()) {
      String content = environment.apply(variable.get());
      if (content == null || content.trim().isEmpty()) {
        throw new IllegalArgumentException(
            "Option '"
                + env.name()
                + "' names environment variable '"
                + variable.get()
                + "', which is not set (or empty) on the driver");
      }
      return Optional.of(content.trim());
    }
    if (path.isPresent()) {
      String content = new String(readFile(file), StandardCharsets.UTF_8).trim();
      if (content.isEmpty()) {
        throw new IllegalArgumentException(
            "Option '" + file.name() + "' names file '" + path.get() + "', which is empty");
      }
      return Optional.of(content);
    }
    return value;
  }

  /** The content of the file an option names, read now (on the driver). */
  public byte[] readFile(OptionSpec spec) {
    String path = required(spec);
    try {
      return Files.readAllBytes(Paths.get(path));
    } catch (IOException | InvalidPathException e) {
      throw new IllegalArgumentException(
          "Option '"
              + spec.name()
              + "' names file '"
              + path
              + "', which cannot be read on the driver: "
              + e.getClass().getSimpleName()
              + (e.getMessage() == null || e.getMessage().equals(path)
                  ? ""
                  : ": " + e.getMessage()),
          e);
    }
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
   * The value of an option that takes one of an enum's constants, written in any case; the default
   * when absent.
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
