package io.flightsql.spark.it.fuzz;

import java.util.ArrayList;
import java.util.List;

/**
 * How a case failed: {@code kind} names the check (a shrink keeps a smaller case only where it
 * fails the same check), {@code detail} shows expected and actual.
 */
record Failure(String kind, String detail) {
  /** The first line of an exception's message, with its class. */
  static String message(Throwable e) {
    String message = String.valueOf(e.getMessage());
    int end = message.indexOf('\n');
    return e.getClass().getSimpleName() + ": " + (end < 0 ? message : message.substring(0, end));
  }

  static List<List<String>> sorted(List<List<String>> rows) {
    List<List<String>> sorted = new ArrayList<>(rows);
    sorted.sort((a, b) -> a.toString().compareTo(b.toString()));
    return sorted;
  }
}
