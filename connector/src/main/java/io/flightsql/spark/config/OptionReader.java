package io.flightsql.spark.config;

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

/**
 * Reads options from the case-insensitive map Spark hands to a data source, with errors that name
 * the option, the value it got and the form it expected.
 */
public final class OptionReader {
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
   * A secret given directly, by the name of an environment variable of the driver, or by a file
   * read on the driver; at most one of the three.
   *
   * @throws IllegalArgumentException when more than one is given, the variable is not set or the
   *     file cannot be read; the message never holds the secret
   */
  public Optional<String> secret(
      OptionSpec<String> direct, OptionSpec<String> env, OptionSpec<String> file) {
    Optional<String> value = given(direct);
    Optional<String> variable = given(env);
    Optional<String> path = given(file);
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
  public byte[] readFile(OptionSpec<String> spec) {
    String path = value(spec);
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

  /** The option's text as given, trimmed; empty when the option is absent or blank. */
  public Optional<String> given(OptionSpec<?> spec) {
    String value = options.get(spec.name().toLowerCase(Locale.ROOT));
    if (value == null || value.trim().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(value.trim());
  }

  /**
   * The option's value: the given text parsed, else its default, else empty.
   *
   * @throws IllegalArgumentException when the given text is not a value of the option
   */
  public <T> Optional<T> optional(OptionSpec<T> spec) {
    Optional<String> text = given(spec);
    return text.isPresent() ? Optional.of(spec.parse(text.get())) : spec.defaultValue();
  }

  /**
   * The option's value, given or default.
   *
   * @throws IllegalArgumentException when the option is absent and has no default, or its text is
   *     not a value of the option
   */
  public <T> T value(OptionSpec<T> spec) {
    return optional(spec)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "Option '" + spec.name() + "' is required: expected " + spec.form()));
  }

  /** The error for a value that does not have the option's form; see {@link OptionSpec#invalid}. */
  public static IllegalArgumentException invalid(OptionSpec<?> spec, String value, String why) {
    return spec.invalid(value, why);
  }
}
