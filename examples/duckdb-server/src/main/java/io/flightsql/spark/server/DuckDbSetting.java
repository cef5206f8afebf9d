package io.flightsql.spark.server;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One DuckDB setting that a server applies database-wide at start-up, after its own defaults, for
 * example {@code produce_arrow_string_view = true}.
 *
 * <p>Names and values come from the command line and from test code, and end up in a SQL statement,
 * so both are checked here rather than trusted: a name is a plain identifier (letters, digits and
 * underscores, as in {@code s3_region}), and the value is always sent as a string literal, which
 * DuckDB casts to the setting's type ({@code 'true'} for a BOOLEAN setting, {@code '4'} for a
 * BIGINT one). Quoting every value, instead of passing numbers bare, also keeps a value such as
 * {@code 1.10} from being read as the number 1.1.
 */
record DuckDbSetting(String name, String value) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /**
   * Settings that the server sets itself after loading its data, which would silently undo the
   * caller's value ({@code worker_threads} is DuckDB's other name for {@code threads}).
   */
  private static final Set<String> MANAGED = Set.of("threads", "worker_threads");

  /**
   * Parts of the names of DuckDB settings that hold credentials ({@code s3_secret_access_key},
   * {@code s3_session_token}, {@code azure_storage_connection_string}, ...), whose values stay out
   * of logs and messages.
   */
  private static final List<String> SECRET_NAME_PARTS =
      List.of("secret", "password", "token", "key", "credential", "connection_string");

  /**
   * @throws IllegalArgumentException if the name is not a plain setting name, the value holds
   *     control characters, or the server manages the setting itself
   */
  DuckDbSetting {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "Invalid DuckDB setting name '"
              + name
              + "': expected letters, digits and underscores, not starting with a digit, such as"
              + " produce_arrow_string_view");
    }
    if (MANAGED.contains(name.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(
          "DuckDB setting '"
              + name
              + "' cannot be changed: the server runs DuckDB on one thread per query so that the"
              + " endpoints of a query see the same row order");
    }
    if (value == null) {
      throw new IllegalArgumentException("DuckDB setting '" + name + "' needs a value");
    }
    if (value.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException(
          "Invalid value for DuckDB setting '"
              + name
              + "': control characters (line breaks, tabs, NUL) are not allowed");
    }
  }

  /**
   * Parses {@code name=value}, the form of the {@code --setting} flag.
   *
   * @throws IllegalArgumentException if there is no {@code =} or the setting is invalid
   */
  static DuckDbSetting parse(String assignment) {
    int equals = assignment == null ? -1 : assignment.indexOf('=');
    if (equals <= 0) {
      throw new IllegalArgumentException(
          "Invalid value '"
              + assignment
              + "' for option '--setting': expected name=value, such as"
              + " produce_arrow_string_view=true");
    }
    return new DuckDbSetting(
        assignment.substring(0, equals).trim(), assignment.substring(equals + 1).trim());
  }

  /** {@code SET GLOBAL name = 'value'}. */
  String sql() {
    return "SET GLOBAL " + name + " = " + QuerySql.quoteLiteral(value);
  }

  /** {@code name=value}, or {@code name=***} for a setting that may hold a credential. */
  @Override
  public String toString() {
    String lowerName = name.toLowerCase(Locale.ROOT);
    boolean secret = SECRET_NAME_PARTS.stream().anyMatch(lowerName::contains);
    return name + "=" + (secret ? "***" : value);
  }
}
