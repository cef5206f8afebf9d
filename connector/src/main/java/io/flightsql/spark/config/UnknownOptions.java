package io.flightsql.spark.config;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns, on the driver, of options the connector does not know, which it would otherwise ignore in
 * silence: a misspelt {@code partitionColum} reads the whole table in one partition. Only a
 * warning, never an error, since Spark passes options of its own along with the connector's. Names
 * the option and the closest known one; never the value, which may be a secret.
 */
final class UnknownOptions {
  private static final Logger LOG = LoggerFactory.getLogger(UnknownOptions.class);

  private UnknownOptions() {}

  /**
   * Logs one warning for each unknown name among {@code options}' keys, in name order. The words do
   * not say whether a read or a write ignores it: Spark builds the table of a write as it would a
   * read's before it writes, so both may warn of the same name.
   */
  static void warn(Map<String, String> options) {
    for (String name : new TreeSet<>(options.keySet())) {
      if (FlightSqlOptions.isKnown(name)) {
        continue;
      }
      Optional<String> closest = closest(name);
      if (closest.isPresent()) {
        LOG.warn(
            "Option '{}' is not an option of the flightsql data source and is ignored; did you"
                + " mean '{}'?",
            name,
            closest.get());
      } else {
        LOG.warn(
            "Option '{}' is not an option of the flightsql data source and is ignored; see"
                + " docs/configuration.md for the options it knows",
            name);
      }
    }
  }

  /**
   * The known option whose name is fewest edits away from {@code name} (case aside), when that is
   * close enough to be a slip rather than another word: at most one edit for names of up to four
   * characters, two up to eight, three beyond.
   */
  static Optional<String> closest(String name) {
    String lowered = name.toLowerCase(Locale.ROOT);
    int allowed = lowered.length() <= 4 ? 1 : lowered.length() <= 8 ? 2 : 3;
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (OptionSpec<?> spec : FlightSqlOptions.all()) {
      String candidate = spec.prefix().orElse(spec.name());
      int distance = distance(lowered, candidate.toLowerCase(Locale.ROOT));
      if (distance < bestDistance) {
        best = spec.name();
        bestDistance = distance;
      }
    }
    return bestDistance <= allowed ? Optional.of(best) : Optional.empty();
  }

  /** Levenshtein's edit distance: insertions, deletions and substitutions of one character. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
