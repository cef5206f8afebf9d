package io.flightsql.spark.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The value of option {@code predicates}: exactly one JSON array of strings, each a non-blank SQL
 * condition. JSON, rather than one condition per line or a separator, because conditions may hold
 * any character (string literals with commas, newlines or semicolons), and JSON's escapes are known
 * to every caller. A parser of its own, as small as the one form it reads, keeps the connector free
 * of a JSON library.
 */
final class JsonStringArray {
  private final String text;
  private int pos;

  private JsonStringArray(String text) {
    this.text = text;
  }

  /**
   * The conditions of {@code text}.
   *
   * @throws IllegalArgumentException saying where the text leaves the form, or that the array is
   *     empty or holds a blank condition
   */
  static List<String> conditions(String text) {
    List<String> out = new JsonStringArray(text).parse();
    if (out.isEmpty()) {
      throw new IllegalArgumentException("the array is empty");
    }
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i).trim().isEmpty()) {
        throw new IllegalArgumentException("condition " + (i + 1) + " is blank");
      }
    }
    return out;
  }

  /** The JSON text of {@code values}, which {@link #conditions} reads back. */
  static String write(List<String> values) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        out.append(", ");
      }
      out.append('"');
      for (char c : values.get(i).toCharArray()) {
        if (c == '"' || c == '\\') {
          out.append('\\').append(c);
        } else if (c < 0x20) {
          out.append(String.format("\\u%04x", (int) c));
        } else {
          out.append(c);
        }
      }
      out.append('"');
    }
    return out.append(']').toString();
  }

  private List<String> parse() {
    List<String> out = new ArrayList<>();
    skipSpace();
    expect('[', "a JSON array starting with '['");
    skipSpace();
    if (peek() == ']') {
      pos++;
    } else {
      while (true) {
        skipSpace();
        out.add(string());
        skipSpace();
        char c = next("',' or ']'");
        if (c == ']') {
          break;
        }
        if (c != ',') {
          pos--;
          throw error("expected ',' or ']'");
        }
      }
    }
    skipSpace();
    if (pos != text.length()) {
      throw error("unexpected text after the array");
    }
    return out;
  }

  private String string() {
    expect('"', "a string in double quotes");
    StringBuilder out = new StringBuilder();
    while (true) {
      char c = next("a closing '\"'");
      if (c == '"') {
        return out.toString();
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char escaped = next("an escaped character");
      switch (escaped) {
        case '"':
        case '\\':
        case '/':
          out.append(escaped);
          break;
        case 'b':
          out.append('\b');
          break;
        case 'f':
          out.append('\f');
          break;
        case 'n':
          out.append('\n');
          break;
        case 'r':
          out.append('\r');
          break;
        case 't':
          out.append('\t');
          break;
        case 'u':
          if (pos + 4 > text.length()) {
            throw error("expected 4 hex digits after \\u");
          }
          try {
            out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
          } catch (NumberFormatException e) {
            throw error("expected 4 hex digits after \\u");
          }
          pos += 4;
          break;
        default:
          throw error("unknown escape \\" + escaped);
      }
    }
  }

  private void skipSpace() {
    while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
      pos++;
    }
  }

  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  private char next(String expected) {
    if (pos >= text.length()) {
      throw error("the text ends where " + expected + " was expected");
    }
    return text.charAt(pos++);
  }

  private void expect(char c, String expected) {
    if (pos >= text.length() || text.charAt(pos) != c) {
      throw error("expected " + expected);
    }
    pos++;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at character " + (pos + 1));
  }
}
