package io.flightsql.spark.config;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The places an option's value comes from, merged in one order for reads and writes alike:
 *
 * <ol>
 *   <li>the options of the read or write itself: {@code .option(name, value)} on {@code
 *       spark.read}/{@code df.write}, or {@code OPTIONS (...)} in SQL;
 *   <li>the session configuration {@code spark.datasource.flightsql.<name>} (set with {@code
 *       spark.conf.set}, {@code --conf} or the application's configuration);
 *   <li>the properties of the connector's catalog, {@code spark.sql.catalog.<catalog>.<name>}, for
 *       tables read and written through it;
 *   <li>the option's default ({@link OptionSpec#defaultValue()}), which {@link OptionReader}
 *       applies when no source gives the option.
 * </ol>
 *
 * <p>A source higher in the list wins, for each name (matched case-insensitively) it gives, even
 * with a blank value, which then means "unset" and falls through to the default.
 *
 * <p>Spark-free: the data source hands in the session configuration as a map.
 */
public final class OptionSources {
  /** The prefix of session configuration that supplies options to this source. */
  public static final String SESSION_CONF_PREFIX = "spark.datasource.flightsql.";

  private final Map<String, String> explicit;
  private final Map<String, String> session;
  private final Map<String, String> catalog;

  private OptionSources(
      Map<String, String> explicit, Map<String, String> session, Map<String, String> catalog) {
    this.explicit = explicit;
    this.session = session;
    this.catalog = catalog;
  }

  /** The options of the read or write itself, the source that beats every other. */
  public static OptionSources explicit(Map<String, String> options) {
    return new OptionSources(
        Collections.unmodifiableMap(new LinkedHashMap<>(options)),
        Collections.emptyMap(),
        Collections.emptyMap());
  }

  /**
   * With a catalog's properties under the explicit options and the session configuration: {@code
   * properties} are those of {@code spark.sql.catalog.<catalog>.*}, without that prefix, as Spark
   * hands them to the catalog.
   */
  public OptionSources withCatalogProperties(Map<String, String> properties) {
    return new OptionSources(
        explicit, session, Collections.unmodifiableMap(new LinkedHashMap<>(properties)));
  }

  /**
   * With the session's configuration under the explicit options: of {@code conf}, only the entries
   * named {@code spark.datasource.flightsql.<name>} count, as option {@code <name>}.
   */
  public OptionSources withSessionConf(Map<String, String> conf) {
    Map<String, String> options = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : conf.entrySet()) {
      String key = entry.getKey();
      if (key.startsWith(SESSION_CONF_PREFIX) && key.length() > SESSION_CONF_PREFIX.length()) {
        options.put(key.substring(SESSION_CONF_PREFIX.length()), entry.getValue());
      }
    }
    return new OptionSources(explicit, Collections.unmodifiableMap(options), catalog);
  }

  /**
   * One map of options: for each name, the value of the first source above that gives it, under
   * that source's spelling of the name. Defaults are not in it.
   */
  public Map<String, String> merged() {
    Map<String, String> out = new LinkedHashMap<>();
    Set<String> seen = new HashSet<>();
    for (Map<String, String> source : Arrays.asList(explicit, session, catalog)) {
      for (Map.Entry<String, String> entry : source.entrySet()) {
        if (seen.add(entry.getKey().toLowerCase(Locale.ROOT))) {
          out.put(entry.getKey(), entry.getValue());
        }
      }
    }
    return out;
  }
}
