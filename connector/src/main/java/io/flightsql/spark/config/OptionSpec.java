package io.flightsql.spark.config;

import io.flightsql.spark.client.transport.FlightUri;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * One documented option of the connector, typed: its name (matched case-insensitively, as Spark
 * passes data source options), how its text becomes a {@code T}, its default, the values it allows
 * when it is a choice, where it applies, whether its value is a secret that must never be printed,
 * and what it does. {@code docs/configuration.md} and the errors about a value are written from
 * these objects, so that each default and each list of allowed values is written once.
 *
 * <p>Specs are declared with the factories of {@link OptionTypes}, finished by {@link
 * Builder#description(String)}, in {@link ConnectionOptions}, {@link ReadOptions}, {@link
 * WriteOptions} and {@link ReadWriteOptions}; {@link FlightSqlOptions} lists them all.
 *
 * @param <T> the type of the option's value
 */
public final class OptionSpec<T> {
  /** Turns an option's trimmed text into its value. */
  @FunctionalInterface
  interface Parser<T> {
    /**
     * @throws IllegalArgumentException when the text is not a value of the option; its message, if
     *     any, says why and becomes the parenthesised reason of the error naming the option
     */
    T parse(String text);
  }

  private final String name;
  private final String form;
  private final Parser<T> parser;
  private final Function<T, String> formatter;
  private final T defaultValue;
  private final List<String> allowedValues;
  private final OptionScope scope;
  private final boolean secret;
  private final String description;

  private OptionSpec(Builder<T> builder, String description) {
    this.name = builder.name;
    this.form = builder.form;
    this.parser = builder.parser;
    this.formatter = builder.formatter;
    this.defaultValue = builder.defaultValue;
    this.allowedValues = builder.allowedValues;
    this.scope = builder.scope;
    this.secret = builder.secret;
    this.description = Objects.requireNonNull(description);
  }

  /** The name as documented, e.g. {@code partitionColumn}; {@code header.<name>} for a prefix. */
  public String name() {
    return name;
  }

  /**
   * The prefix of a family of options such as {@code header.<name>}, lower case; empty for an
   * option with one name.
   */
  public Optional<String> prefix() {
    int placeholder = name.indexOf('<');
    return placeholder < 0
        ? Optional.empty()
        : Optional.of(name.substring(0, placeholder).toLowerCase(Locale.ROOT));
  }

  /** The expected form of the value, as shown in error messages and the docs. */
  public String form() {
    return form;
  }

  /** The value used when the option is absent, or empty when it has none. */
  public Optional<T> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  /** The default as a user would write it, e.g. {@code 30s}; empty when there is none. */
  public Optional<String> defaultText() {
    return defaultValue().map(formatter);
  }

  /** The values a choice allows, lower case, in documentation order; empty for other options. */
  public List<String> allowedValues() {
    return allowedValues;
  }

  public OptionScope scope() {
    return scope;
  }

  public boolean isSecret() {
    return secret;
  }

  public String description() {
    return description;
  }

  /**
   * The value of the option's trimmed text.
   *
   * @throws IllegalArgumentException {@code Invalid value '<text>' for option '<name>': expected
   *     <form>}, with the parser's reason in parentheses when it gives one; a secret's text is
   *     never shown
   */
  public T parse(String text) {
    try {
      return parser.parse(text);
    } catch (IllegalArgumentException e) {
      throw invalid(text, e.getMessage());
    }
  }

  /** A value as a user would write it. */
  public String format(T value) {
    return formatter.apply(value);
  }

  /**
   * The error for a value that does not have the option's form, with {@code why} (may be null) in
   * parentheses; never shows a secret value, nor credentials in a URI.
   */
  public IllegalArgumentException invalid(String value, String why) {
    String shown = secret ? "*****" : FlightUri.redact(value);
    String reason = why == null ? "" : " (" + why + ")";
    return new IllegalArgumentException(
        "Invalid value '" + shown + "' for option '" + name + "': expected " + form + reason);
  }

  @Override
  public String toString() {
    return name;
  }

  /**
   * An option being declared; {@link #description(String)} finishes it. Obtained from the factories
   * of {@link OptionTypes}.
   */
  static final class Builder<T> {
    private final String name;
    private final String form;
    private final Parser<T> parser;
    private final Function<T, String> formatter;
    private final List<String> allowedValues;
    private final OptionScope scope;
    private T defaultValue;
    private boolean secret;

    Builder(
        String name,
        String form,
        Parser<T> parser,
        Function<T, String> formatter,
        List<String> allowedValues,
        OptionScope scope) {
      this.name = Objects.requireNonNull(name);
      this.form = Objects.requireNonNull(form);
      this.parser = Objects.requireNonNull(parser);
      this.formatter = Objects.requireNonNull(formatter);
      this.allowedValues = Collections.unmodifiableList(allowedValues);
      this.scope = Objects.requireNonNull(scope);
    }

    Builder<T> defaultValue(T value) {
      this.defaultValue = Objects.requireNonNull(value);
      return this;
    }

    /** The value is never printed; a secret has no default. */
    Builder<T> secret() {
      this.secret = true;
      return this;
    }

    OptionSpec<T> description(String text) {
      if (secret && defaultValue != null) {
        throw new IllegalStateException("Secret option '" + name + "' cannot have a default");
      }
      return new OptionSpec<>(this, text);
    }
  }
}
