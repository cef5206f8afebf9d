package io.flightsql.spark.config;

import java.util.Objects;

/**
 * One documented option of the connector: its name (matched case-insensitively, as Spark passes
 * data source options), the form its value takes, its default, where it applies, whether its value
 * is a secret that must never be printed, and what it does.
 */
public final class OptionSpec {
  private final String name;
  private final String form;
  private final String defaultValue;
  private final OptionScope scope;
  private final boolean secret;
  private final String description;

  private OptionSpec(
      String name,
      String form,
      String defaultValue,
      OptionScope scope,
      boolean secret,
      String description) {
    this.name = Objects.requireNonNull(name);
    this.form = Objects.requireNonNull(form);
    this.defaultValue = defaultValue;
    this.scope = Objects.requireNonNull(scope);
    this.secret = secret;
    this.description = Objects.requireNonNull(description);
  }

  static OptionSpec plain(
      String name, String form, String defaultValue, OptionScope scope, String description) {
    return new OptionSpec(name, form, defaultValue, scope, false, description);
  }

  static OptionSpec secret(String name, String form, OptionScope scope, String description) {
    return new OptionSpec(name, form, null, scope, true, description);
  }

  public String name() {
    return name;
  }

  /** The expected form of the value, as shown in error messages and the docs. */
  public String form() {
    return form;
  }

  /** The default value as text, or {@code null} when the option has none. */
  public String defaultValue() {
    return defaultValue;
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

  @Override
  public String toString() {
    return name;
  }
}
