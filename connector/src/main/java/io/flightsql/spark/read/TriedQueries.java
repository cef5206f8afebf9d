package io.flightsql.spark.read;

import io.flightsql.spark.client.transport.FlightUri;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Whether each server took each pushed query it was tried with (with {@code 1 = 0}, so that it
 * returns no row), remembered in this JVM so that the same pushdown into the same server is tried
 * once: at most {@value #MAX} answers, forgotten all at once beyond that. Thread-safe.
 */
final class TriedQueries {
  static final int MAX = 1_000;

  private static final Map<String, Boolean> ANSWERS = new ConcurrentHashMap<>();

  private TriedQueries() {}

  /**
   * The remembered answer for {@code sql} on {@code server}, or {@code tryIt}'s, remembered unless
   * it is null (no answer, such as a server out of reach: taken as a refusal this time only).
   */
  static boolean takes(FlightUri server, String sql, Supplier<Boolean> tryIt) {
    String key = server + "\n" + sql;
    Boolean known = ANSWERS.get(key);
    if (known != null) {
      return known;
    }
    Boolean taken = tryIt.get();
    if (taken == null) {
      return false;
    }
    if (ANSWERS.size() >= MAX) {
      ANSWERS.clear();
    }
    ANSWERS.put(key, taken);
    return taken;
  }
}
