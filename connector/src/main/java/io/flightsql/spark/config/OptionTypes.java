package io.flightsql.spark.config;

import io.flightsql.spark.client.transport.FlightUri;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kinds of option values the connector takes, each a factory of {@link OptionSpec.Builder} with
 * its parser, the way it prints a value back, and, for choices, the allowed values from which the
 * expected form is written.
 */
final class OptionTypes {
  private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h)");

  private static final String DURATION_FORM = "a duration such as `500ms`, `30s` or `2m`";

  private OptionTypes() {}

  /** Any text, taken as given (trimmed). */
  static OptionSpec.Builder<String> text(String name, String form, OptionScope scope) {
    return custom(name, form, scope, text -> text, Function.identity());
  }

  /** A value of a form of its own: {@code parser} throws, with a reason, for text outside it. */
  static <T> OptionSpec.Builder<T> custom(
      String name,
      String form,
      OptionScope scope,
      OptionSpec.Parser<T> parser,
      Function<T, String> formatter) {
    return new OptionSpec.Builder<>(name, form, parser, formatter, Collections.emptyList(), scope);
  }

  /** A Flight SQL server's address; the reason of a refusal is {@link FlightUri#parse}'s. */
  static OptionSpec.Builder<FlightUri> uri(String name, OptionScope scope) {
    return custom(
        name,
        "grpc://host:port, grpc+tcp://host:port or grpc+tls://host:port",
        scope,
        FlightUri::parse,
        FlightUri::toString);
  }

  /** A strict {@code true} or {@code false}, in any case. */
  static OptionSpec.Builder<Boolean> bool(String name, OptionScope scope) {
    List<String> values = Arrays.asList("true", "false");
    return new OptionSpec.Builder<>(
        name,
        either(values),
        text -> {
          if (text.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
          }
          if (text.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
          }
          throw new IllegalArgumentException();
        },
        String::valueOf,
        values,
        scope);
  }

  /** One of {@code values}, written as their lower-case names in any case. */
  @SafeVarargs
  static <E extends Enum<E>> OptionSpec.Builder<E> choice(
      String name, OptionScope scope, E... values) {
    List<String> names = new ArrayList<>();
    for (E value : values) {
      names.add(lowerCase(value));
    }
    return new OptionSpec.Builder<>(
        name,
        either(names),
        text -> {
          for (E value : values) {
            if (value.name().equalsIgnoreCase(text)) {
              return value;
            }
          }
          throw new IllegalArgumentException();
        },
        OptionTypes::lowerCase,
        names,
        scope);
  }

  /** One of {@code values} (lower case), written in any case; the value is lower case. */
  static OptionSpec.Builder<String> choice(String name, OptionScope scope, String... values) {
    List<String> names = Arrays.asList(values);
    return new OptionSpec.Builder<>(
        name,
        either(names),
        text -> {
          String lowered = text.toLowerCase(Locale.ROOT);
          if (names.contains(lowered)) {
            return lowered;
          }
          throw new IllegalArgumentException();
        },
        Function.identity(),
        names,
        scope);
  }

  /** A whole number from 1 to {@link Integer#MAX_VALUE}. */
  static OptionSpec.Builder<Integer> positiveInt(String name, String form, OptionScope scope) {
    return custom(
        name, form, scope, text -> (int) positive(text, Integer.MAX_VALUE), String::valueOf);
  }

  /** A whole number from 1 to {@link Long#MAX_VALUE}. */
  static OptionSpec.Builder<Long> positiveLong(String name, String form, OptionScope scope) {
    return custom(name, form, scope, text -> positive(text, Long.MAX_VALUE), String::valueOf);
  }

  /** A duration above zero such as {@code 500ms}, {@code 30s}, {@code 2m} or {@code 1h}. */
  static OptionSpec.Builder<Duration> duration(String name, OptionScope scope) {
    return custom(name, DURATION_FORM, scope, OptionTypes::duration, OptionTypes::formatDuration);
  }

  /**
   * A duration such as {@code 30s}, or {@code 0} (any unit, or none) for "off": {@link
   * Duration#ZERO}.
   */
  static OptionSpec.Builder<Duration> durationOrOff(String name, OptionScope scope) {
    return custom(
        name,
        DURATION_FORM + ", or `0` to turn it off",
        scope,
        text -> text.strip().matches("0+\\s*(ms|s|m|h)?") ? Duration.ZERO : duration(text),
        value -> value.isZero() ? "0" : formatDuration(value));
  }

  /** A whole number from 0 to {@code max}. */
  static OptionSpec.Builder<Integer> intUpTo(String name, int max, OptionScope scope) {
    return custom(
        name,
        "a whole number from 0 to " + max,
        scope,
        text -> {
          long value;
          try {
            value = Long.parseLong(text.strip());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException();
          }
          if (value < 0 || value > max) {
            throw new IllegalArgumentException();
          }
          return (int) value;
        },
        String::valueOf);
  }

  private static long positive(String text, long max) {
    long value;
    try {
      value = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException();
    }
    if (value < 1 || value > max) {
      throw new IllegalArgumentException("at most " + max);
    }
    return value;
  }

  /**
   * A duration such as {@code 30s} above zero.
   *
   * @throws IllegalArgumentException when the text is not one, with the reason when there is one
   */
  static Duration duration(String text) {
    Matcher m = DURATION.matcher(text.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException();
    }
    long amount = Long.parseLong(m.group(1));
    if (amount == 0) {
      throw new IllegalArgumentException("a duration above zero");
    }
    switch (m.group(2)) {
      case "ms":
        return Duration.ofMillis(amount);
      case "s":
        return Duration.ofSeconds(amount);
      case "m":
        return Duration.ofMinutes(amount);
      default:
        return Duration.ofHours(amount);
    }
  }

  /** The largest unit that writes the duration exactly: {@code 30s}, not {@code 30000ms}. */
  static String formatDuration(Duration duration) {
    long millis = duration.toMillis();
    if (millis % 3_600_000L == 0) {
      return millis / 3_600_000L + "h";
    }
    if (millis % 60_000L == 0) {
      return millis / 60_000L + "m";
    }
    if (millis % 1_000L == 0) {
      return millis / 1_000L + "s";
    }
    return millis + "ms";
  }

  /** {@code `a` or `b`}, {@code `a`, `b` or `c`}. */
  private static String either(List<String> values) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        out.append(i == values.size() - 1 ? " or " : ", ");
      }
      out.append('`').append(values.get(i)).append('`');
    }
    return out.toString();
  }

  private static String lowerCase(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }
}
