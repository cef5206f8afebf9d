package io.flightsql.spark.client.metadata;

import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightUri;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Which of the tables a name matches the name means, as the server's own SQL takes it: the one
 * table, where it matches one; else the one in the server's current schema ({@link CurrentSchema}),
 * where a name without its schema goes. Where that schema cannot be established, or holds none or
 * several of them, the name is refused, with the tables it matches and how to name one. Static.
 */
final class TableChoice {
  private TableChoice() {}

  /**
   * The table {@code wanted} means among {@code candidates} (one at least).
   *
   * @param ignoringCase whether the candidates matched {@code wanted} ignoring case
   * @param current asked only when there are several candidates
   * @throws IllegalArgumentException when the name cannot be resolved to one of them
   */
  static TableRef choose(
      TableRef wanted,
      List<TableRef> candidates,
      boolean ignoringCase,
      Supplier<CurrentSchema> current,
      FlightUri server) {
    if (candidates.size() == 1) {
      return candidates.get(0);
    }
    CurrentSchema asked = current.get();
    if (!asked.place().isPresent()) {
      throw new IllegalArgumentException(
          FlightErrors.message(
              ambiguity(wanted, candidates, server)
                  + ". The server's SQL takes the one in its current schema, which could not be"
                  + " established ("
                  + asked.source()
                  + "). "
                  + howToName(candidates)));
    }
    ServerSchema place = asked.place().get();
    List<TableRef> there = inPlace(candidates, place, true);
    if (there.isEmpty()) {
      there = inPlace(candidates, place, false);
    }
    if (there.size() == 1) {
      return there.get(0);
    }
    if (there.isEmpty()) {
      throw new IllegalArgumentException(
          FlightErrors.message(
              ambiguity(wanted, candidates, server)
                  + ", and none is in the server's current schema, "
                  + describe(place)
                  + " (said by "
                  + asked.source()
                  + "), where its SQL looks for the name. "
                  + howToName(candidates)));
    }
    if (ignoringCase) {
      throw new IllegalArgumentException(
          FlightErrors.message(
              "Table "
                  + wanted
                  + " matches several tables on "
                  + server
                  + " when case is ignored: "
                  + list(there)
                  + ". Name one in its exact spelling, or set spark.sql.caseSensitive=true."));
    }
    // Exact matches in one schema: the server listed a table twice (once per table type, say).
    return there.get(0);
  }

  private static List<TableRef> inPlace(
      List<TableRef> candidates, ServerSchema place, boolean caseSensitive) {
    List<TableRef> out = new ArrayList<>();
    for (TableRef candidate : candidates) {
      if (same(candidate.schema(), place.schema(), caseSensitive)
          && (place.catalog() == null
              || candidate.catalog() == null
              || same(candidate.catalog(), place.catalog(), caseSensitive))) {
        out.add(candidate);
      }
    }
    return out;
  }

  private static boolean same(String listed, String current, boolean caseSensitive) {
    return listed != null
        && (caseSensitive ? listed.equals(current) : listed.equalsIgnoreCase(current));
  }

  private static String list(List<TableRef> tables) {
    return tables.stream().map(TableRef::toString).collect(Collectors.joining(", "));
  }

  private static String describe(ServerSchema place) {
    return place.catalog() == null
        ? quoted(place.schema())
        : quoted(place.catalog()) + "." + quoted(place.schema());
  }

  private static String quoted(String part) {
    return '"' + part.replace("\"", "\"\"") + '"';
  }

  private static String howToName(List<TableRef> candidates) {
    TableRef example = candidates.get(0);
    List<String> parts = new ArrayList<>();
    for (String part : new String[] {example.catalog(), example.schema(), example.name()}) {
      if (part != null) {
        parts.add(part);
      }
    }
    return "Name the table with its schema, as option 'dbtable' takes it ("
        + example
        + ") or as a catalog identifier (<catalog>."
        + String.join(".", parts)
        + "), or set option 'schema'.";
  }

  /** The start of both refusals: the name, and the tables it names on the server. */
  private static String ambiguity(Object wanted, List<TableRef> candidates, FlightUri server) {
    return "Table "
        + wanted
        + " names "
        + candidates.size()
        + " tables on "
        + server
        + ": "
        + list(candidates);
  }
}
