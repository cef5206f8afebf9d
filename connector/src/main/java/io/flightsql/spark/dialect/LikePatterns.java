package io.flightsql.spark.dialect;

import java.util.Optional;

/**
 * The LIKE patterns of Spark's STARTS_WITH, ENDS_WITH and CONTAINS: the text with its wildcards and
 * the escape character escaped, so that it matches only itself, and {@code %} where the function
 * allows anything.
 */
final class LikePatterns {
  /** The escape character of the patterns; not a backslash, which some servers treat as one. */
  static final char ESCAPE = '!';

  private LikePatterns() {}

  /** The pattern of {@code function} for {@code text}, or empty for another function. */
  static Optional<String> of(String function, String text) {
    String escaped = escape(text);
    switch (function) {
      case "STARTS_WITH":
        return Optional.of(escaped + "%");
      case "ENDS_WITH":
        return Optional.of("%" + escaped);
      case "CONTAINS":
        return Optional.of("%" + escaped + "%");
      default:
        return Optional.empty();
    }
  }

  /** {@code text} as a pattern that matches only itself. */
  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%' || c == '_' || c == ESCAPE) {
        out.append(ESCAPE);
      }
      out.append(c);
    }
    return out.toString();
  }
}
