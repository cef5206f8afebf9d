package io.flightsql.spark.server;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Strings and column names that would break SQL written carelessly: quotes of every kind, comments,
 * a second statement, backslashes, control characters, LIKE wildcards and the connector's LIKE
 * escape, unicode look-alikes of quotes, and a very long string. Shared by the component and the
 * integration tests of pushdown.
 */
public final class AdversarialValues {
  private AdversarialValues() {}

  /** The statement an injection would try to run: it must never run. */
  public static final String DROP_CANARY = "'; DROP TABLE canary; --";

  /** At least 100 distinct strings, without NUL when {@code withNul} is false. */
  public static List<String> strings(boolean withNul) {
    List<String> seeds =
        new ArrayList<>(
            List.of(
                "'",
                "''",
                "\"",
                "\"\"",
                "`",
                "\\",
                "\\'",
                "\\\\'",
                "'\\",
                DROP_CANARY,
                "\"; DROP TABLE canary; --",
                "x'); DROP TABLE canary; --",
                "1' OR '1'='1",
                "1 OR 1=1",
                "-- comment",
                "/* comment */",
                "*/ DROP TABLE canary /*",
                "a;b",
                ";",
                "%",
                "_",
                "!",
                "!%",
                "!_",
                "!!",
                "%_!",
                "50% off_!",
                "\t",
                "\n",
                "\r\n",
                "\u0001\u0002\u001f",
                "\u007f",
                "\u2019",
                "\uFF07",
                "\u02BC",
                "\u2018quoted\u2019",
                "ünïcødé ✓",
                "emoji 🚀",
                "",
                " ",
                "a",
                "A",
                "x".repeat(100_000),
                "'".repeat(1000),
                "$$dollar$$",
                "E'\\x41'",
                "?",
                ":name",
                "\\x00",
                "NULL"));
    if (withNul) {
      seeds.add("nul\0after");
      seeds.add("\0");
    }
    Set<String> out = new LinkedHashSet<>(seeds);
    // The seeds again inside text and around each other, where a quote or an escape ends early.
    for (String seed : seeds) {
      if (seed.length() < 1000) {
        out.add("pre" + seed + "post");
      }
    }
    for (int i = 0; i + 1 < seeds.size() && out.size() < 150; i += 2) {
      if (seeds.get(i).length() < 1000 && seeds.get(i + 1).length() < 1000) {
        out.add(seeds.get(i) + seeds.get(i + 1));
      }
    }
    return new ArrayList<>(out);
  }

  /** Column names with spaces, quotes, backticks, dots, comments and a second statement. */
  public static List<String> columnNames() {
    return List.of(
        "col with space",
        "quo\"te",
        "single'quote",
        "back`tick",
        "dot.ted",
        "x\"; DROP TABLE canary; --",
        "/* c */");
  }
}
