package io.flightsql.spark.dialect;

import io.flightsql.spark.client.metadata.ServerCapabilities;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Every dialect the connector knows, and the one rule that chooses among them for reads, writes and
 * the catalog alike: option {@code dialect} when the user names one; else the one that the server's
 * name, or failing that its version, names (GetSqlInfo FLIGHT_SQL_SERVER_NAME and
 * FLIGHT_SQL_SERVER_VERSION: arrow-go's SQLite example is named {@code db_name} and says {@code
 * sqlite 3} only in its version); else Spark SQL where the quoting probe found the server reads
 * {@code "c"} as a string; else ANSI. Identifiers are quoted with the server's
 * SQL_IDENTIFIER_QUOTE_CHAR, or the quote the probe established, else with the dialect's own quote;
 * where neither the user, the server nor the probe established the quote, the result says so
 * ({@link ResolvedDialect#quotingKnown()}) and nothing naming a column is pushed.
 */
public final class Dialects {
  /** A dialect: its option value, the words in a server's name that mean it, how to build it. */
  private static final class Entry {
    final String name;
    final List<String> serverWords;
    final Function<String, Dialect> factory;

    Entry(String name, List<String> serverWords, Function<String, Dialect> factory) {
      this.name = name;
      this.serverWords = serverWords;
      this.factory = factory;
    }
  }

  private static final List<Entry> ENTRIES =
      Collections.unmodifiableList(
          Arrays.asList(
              new Entry(AnsiDialect.NAME, Collections.emptyList(), AnsiDialect::new),
              new Entry(
                  DuckDbDialect.NAME, Collections.singletonList("duckdb"), DuckDbDialect::new),
              new Entry(
                  SqliteDialect.NAME, Collections.singletonList("sqlite"), SqliteDialect::new),
              new Entry(DerbyDialect.NAME, Collections.singletonList("derby"), DerbyDialect::new),
              new Entry(
                  MySqlDialect.NAME,
                  Arrays.asList("mysql", "doris", "starrocks"),
                  MySqlDialect::new),
              new Entry(
                  SparkDialect.NAME,
                  Arrays.asList("sail", "kyuubi", "databricks", "spark sql", "spark thrift"),
                  SparkDialect::new)));

  private Dialects() {}

  /** The option values that name a dialect, in documentation order. */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    for (Entry entry : ENTRIES) {
      names.add(entry.name);
    }
    return names;
  }

  /**
   * The dialect a read, write or catalog uses, and how it was established.
   *
   * @param option the value of option {@code dialect}, empty for {@code auto}
   * @param capabilities what the server said of itself (GetSqlInfo), and what the quoting probe
   *     found where it said nothing
   */
  public static ResolvedDialect resolve(Optional<String> option, ServerCapabilities capabilities) {
    String quote = capabilities.identifierQuote();
    if (option.isPresent()) {
      return new ResolvedDialect(named(option.get(), quote), ResolvedDialect.Quoting.NAMED_BY_USER);
    }
    Optional<Entry> byName = byServerWord(capabilities.serverName());
    if (!byName.isPresent()) {
      byName = byServerWord(capabilities.serverVersion());
    }
    if (byName.isPresent()) {
      // The server's name establishes its dialect, and with it the dialect's own quote.
      return new ResolvedDialect(
          byName.get().factory.apply(quote), ResolvedDialect.Quoting.SERVER_NAME);
    }
    ResolvedDialect.Quoting quoting =
        !capabilities.quotingKnown()
            ? ResolvedDialect.Quoting.UNKNOWN
            : capabilities.quoteProbed()
                ? ResolvedDialect.Quoting.PROBE
                : ResolvedDialect.Quoting.SQL_INFO;
    Dialect dialect =
        capabilities.sparkSql() ? new SparkDialect(quote) : ENTRIES.get(0).factory.apply(quote);
    return new ResolvedDialect(dialect, quoting);
  }

  /**
   * The dialect a server's name, or failing that its version, names; ANSI when neither does.
   *
   * @param quote the server's identifier quote, or null or empty for the dialect's own
   */
  public static Dialect detect(String serverName, String serverVersion, String quote) {
    Optional<Entry> entry = byServerWord(serverName);
    if (!entry.isPresent()) {
      entry = byServerWord(serverVersion);
    }
    return entry.orElse(ENTRIES.get(0)).factory.apply(quote);
  }

  /**
   * The dialect an option value names.
   *
   * @param quote the server's identifier quote, or null for the dialect's own
   * @throws IllegalArgumentException for a name no dialect has
   */
  public static Dialect named(String name, String quote) {
    for (Entry entry : ENTRIES) {
      if (entry.name.equalsIgnoreCase(name)) {
        return entry.factory.apply(quote);
      }
    }
    throw new IllegalArgumentException(
        "Invalid value '" + name + "' for option 'dialect': expected auto or one of " + names());
  }

  private static Optional<Entry> byServerWord(String text) {
    String lower = text == null ? "" : text.toLowerCase(Locale.ROOT);
    for (Entry entry : ENTRIES) {
      for (String word : entry.serverWords) {
        if (lower.contains(word)) {
          return Optional.of(entry);
        }
      }
    }
    return Optional.empty();
  }
}
