package io.flightsql.spark.config;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * How a read asks to be split by the client, as its options say: not at all (the server's endpoints
 * are the partitions), by ranges of a column ({@code partitionColumn}, {@code lowerBound}, {@code
 * upperBound}, {@code numPartitions}), or by a list of WHERE clauses ({@code predicates}).
 * Immutable and Serializable. The bounds stay text here: their type is the partition column's,
 * which only the read's schema tells (see {@code sql.ColumnPartitioning}).
 */
public final class ReadPartitioning implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final ReadPartitioning NONE = new ReadPartitioning(null, null, null, 0, null);

  private final String column;
  private final String lowerBound;
  private final String upperBound;
  private final int numPartitions;
  private final ArrayList<String> predicates;

  private ReadPartitioning(
      String column,
      String lowerBound,
      String upperBound,
      int numPartitions,
      List<String> predicates) {
    this.column = column;
    this.lowerBound = lowerBound;
    this.upperBound = upperBound;
    this.numPartitions = numPartitions;
    this.predicates = predicates == null ? null : new ArrayList<>(predicates);
  }

  /**
   * Validates the partitioning options of a read.
   *
   * @throws IllegalArgumentException naming the option at fault and what it expects
   */
  static ReadPartitioning from(OptionReader reader) {
    Optional<String> column = reader.optional(FlightSqlOptions.PARTITION_COLUMN);
    Optional<String> lower = reader.optional(FlightSqlOptions.LOWER_BOUND);
    Optional<String> upper = reader.optional(FlightSqlOptions.UPPER_BOUND);
    Optional<String> count = reader.optional(FlightSqlOptions.NUM_PARTITIONS);
    Optional<String> predicates = reader.optional(FlightSqlOptions.PREDICATES);
    List<String> given = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    sort(FlightSqlOptions.PARTITION_COLUMN, column, given, missing);
    sort(FlightSqlOptions.LOWER_BOUND, lower, given, missing);
    sort(FlightSqlOptions.UPPER_BOUND, upper, given, missing);
    sort(FlightSqlOptions.NUM_PARTITIONS, count, given, missing);
    if (predicates.isPresent()) {
      if (!given.isEmpty()) {
        throw new IllegalArgumentException(
            "Option 'predicates' cannot be used together with "
                + quotedList(given)
                + "; use 'predicates' for WHERE clauses of your own, or 'partitionColumn' with"
                + " 'lowerBound', 'upperBound' and 'numPartitions' for ranges of one column");
      }
      return new ReadPartitioning(null, null, null, 0, parsePredicates(predicates.get()));
    }
    if (given.isEmpty()) {
      return NONE;
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "Options 'partitionColumn', 'lowerBound', 'upperBound' and 'numPartitions' must be given"
              + " together: "
              + quotedList(given)
              + (given.size() == 1 ? " is" : " are")
              + " given, "
              + quotedList(missing)
              + (missing.size() == 1 ? " is" : " are")
              + " missing");
    }
    int partitions = (int) reader.positiveLong(FlightSqlOptions.NUM_PARTITIONS, Integer.MAX_VALUE);
    return new ReadPartitioning(column.get(), lower.get(), upper.get(), partitions, null);
  }

  private static void sort(
      OptionSpec spec, Optional<String> value, List<String> given, List<String> missing) {
    (value.isPresent() ? given : missing).add(spec.name());
  }

  private static String quotedList(List<String> names) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < names.size(); i++) {
      if (i > 0) {
        out.append(i == names.size() - 1 ? " and " : ", ");
      }
      out.append('\'').append(names.get(i)).append('\'');
    }
    return out.toString();
  }

  /**
   * The conditions of option {@code predicates}: a JSON array of strings. JSON, rather than one
   * condition per line or a separator, because conditions may hold any character (string literals
   * with commas, newlines or semicolons), and JSON's escapes are known to every caller.
   */
  static List<String> parsePredicates(String text) {
    List<String> out;
    try {
      out = new JsonStringArray(text).parse();
    } catch (IllegalArgumentException e) {
      throw OptionReader.invalid(FlightSqlOptions.PREDICATES, text, e.getMessage());
    }
    if (out.isEmpty()) {
      throw OptionReader.invalid(FlightSqlOptions.PREDICATES, text, "the array is empty");
    }
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i).trim().isEmpty()) {
        throw OptionReader.invalid(
            FlightSqlOptions.PREDICATES, text, "condition " + (i + 1) + " is blank");
      }
    }
    return out;
  }

  /** Whether the client splits the read; if not, the server's endpoints are its partitions. */
  public boolean isClientSide() {
    return column != null || predicates != null;
  }

  /** The partition column as the user wrote it, when the read is split by ranges of a column. */
  public Optional<String> column() {
    return Optional.ofNullable(column);
  }

  /** Option {@code lowerBound}'s text; only with {@link #column()}. */
  public String lowerBound() {
    return lowerBound;
  }

  /** Option {@code upperBound}'s text; only with {@link #column()}. */
  public String upperBound() {
    return upperBound;
  }

  /** Option {@code numPartitions}; only with {@link #column()}. */
  public int numPartitions() {
    return numPartitions;
  }

  /** The WHERE clauses of option {@code predicates}, one partition each, when given. */
  public Optional<List<String>> predicates() {
    return predicates == null
        ? Optional.empty()
        : Optional.of(Collections.unmodifiableList(predicates));
  }

  @Override
  public String toString() {
    if (column != null) {
      return "partitionColumn="
          + column
          + ", lowerBound="
          + lowerBound
          + ", upperBound="
          + upperBound
          + ", numPartitions="
          + numPartitions;
    }
    if (predicates != null) {
      return "predicates=" + predicates.size();
    }
    return "server endpoints";
  }

  /**
   * A parser of exactly one JSON array of strings, which is all option {@code predicates} takes.
   */
  private static final class JsonStringArray {
    private final String text;
    private int pos;

    JsonStringArray(String text) {
      this.text = text;
    }

    List<String> parse() {
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
}
