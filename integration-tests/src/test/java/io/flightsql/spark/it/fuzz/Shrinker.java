package io.flightsql.spark.it.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Makes a failing case smaller while it still fails the same check: no shadow table, fewer rows
 * (all, halves, then one at a time), a simpler read (no WHERE, a part of a condition, no LIMIT,
 * fewer columns and aggregates), and no column the read does not use. Greedy: the first smaller
 * case that still fails is kept and the search starts again from it, up to a bounded number of
 * tries.
 */
final class Shrinker {
  private final CaseRunner runner;
  private final int maxTries;
  private int tries;

  Shrinker(CaseRunner runner, int maxTries) {
    this.runner = runner;
    this.maxTries = maxTries;
  }

  /** A failing case, as small as the tries allowed. */
  record Shrunk(FuzzTable table, FuzzRead read, Failure failure, int tries) {}

  Shrunk shrink(FuzzTable table, FuzzRead read, Failure failure) {
    boolean smaller = true;
    while (smaller && tries < maxTries) {
      smaller = false;
      for (Candidate candidate : candidates(table, read)) {
        if (tries >= maxTries) {
          break;
        }
        tries++;
        Failure again;
        try {
          again = runner.run(candidate.table(), candidate.read());
        } catch (Exception e) {
          continue;
        }
        if (again != null && again.kind().equals(failure.kind())) {
          table = candidate.table();
          read = candidate.read();
          failure = again;
          smaller = true;
          break;
        }
      }
    }
    return new Shrunk(table, read, failure, tries);
  }

  private record Candidate(FuzzTable table, FuzzRead read) {}

  private static List<Candidate> candidates(FuzzTable table, FuzzRead read) {
    List<Candidate> candidates = new ArrayList<>();
    if (table.shadowed()) {
      candidates.add(new Candidate(table.withoutShadow(), read));
    }
    List<List<Object>> rows = table.rows();
    if (rows.size() > 1) {
      candidates.add(new Candidate(table.withRows(List.of()), read));
      candidates.add(new Candidate(table.withRows(rows.subList(0, rows.size() / 2)), read));
      candidates.add(
          new Candidate(table.withRows(rows.subList(rows.size() / 2, rows.size())), read));
    }
    for (int i = 0; i < rows.size(); i++) {
      List<List<Object>> fewer = new ArrayList<>(rows);
      fewer.remove(i);
      candidates.add(new Candidate(table.withRows(fewer), read));
    }
    for (FuzzRead simpler : ReadShrinks.of(read)) {
      candidates.add(new Candidate(table, simpler));
    }
    Set<String> used = read.columns();
    for (int i = 0; i < table.columns().size() && table.columns().size() > 1; i++) {
      String name = table.columns().get(i).name();
      if (!used.contains(name)) {
        candidates.add(new Candidate(table.without(name), withoutColumn(read, i)));
      }
    }
    for (int i = 0; i < rows.size(); i++) {
      for (int c = 0; c < table.columns().size(); c++) {
        if (rows.get(i).get(c) != null) {
          List<List<Object>> nulled = new ArrayList<>(rows);
          List<Object> row = new ArrayList<>(rows.get(i));
          row.set(c, null);
          nulled.set(i, row);
          candidates.add(new Candidate(table.withRows(nulled), read));
        }
      }
    }
    return candidates;
  }

  /** The read's user schema without the column at {@code index} of the table. */
  private static FuzzRead withoutColumn(FuzzRead read, int index) {
    List<Integer> order = new ArrayList<>();
    for (int i : read.schemaOrder()) {
      if (i != index) {
        order.add(i > index ? i - 1 : i);
      }
    }
    return read.withSchemaOrder(order);
  }
}
