package io.flightsql.spark.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The reads that the running Spark action (one SQL execution, {@code spark.sql.execution.id}) made
 * partitions for, on the driver: which server each reads and the SQL it sends. A write whose table
 * change runs before its tasks (option {@code atomic} {@code false}) asks here whether its own job
 * reads the table it is about to empty or drop: Spark makes a job's input partitions before it asks
 * the write for its writer factory, in the same execution. Only the last {@value #KEPT_ACTIONS}
 * actions are remembered. Servers are named by their address ({@code FlightUri.toString()}, which
 * carries no secret). Kept with the metrics, which both paths use: what an action did. Thread-safe.
 */
public final class ActionReads {
  /** The local property in which Spark names the running action, on the driver and in tasks. */
  public static final String EXECUTION_ID = "spark.sql.execution.id";

  private static final int KEPT_ACTIONS = 64;

  private static final Map<String, List<Read>> READS =
      new LinkedHashMap<String, List<Read>>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, List<Read>> eldest) {
          return size() > KEPT_ACTIONS;
        }
      };

  private ActionReads() {}

  /** Notes that the running action reads {@code sql} from {@code server}. */
  public static void note(String server, String sql) {
    String action = currentAction();
    if (action == null) {
      return;
    }
    synchronized (READS) {
      READS.computeIfAbsent(action, a -> new ArrayList<>()).add(new Read(server, sql));
    }
  }

  /**
   * The SQL of a read of the running action that names table {@code name} (ignoring case) on {@code
   * server}, if any; empty outside an action.
   */
  public static Optional<String> readingTable(String server, String name) {
    String action = currentAction();
    if (action == null) {
      return Optional.empty();
    }
    synchronized (READS) {
      for (Read read : READS.getOrDefault(action, new ArrayList<>())) {
        if (read.server.equals(server) && names(read.sql, name)) {
          return Optional.of(read.sql);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Whether {@code sql} holds {@code name} as a whole identifier, quoted or not: a read that only
   * might read the table counts, since what it costs to be wrong is the table's rows.
   */
  static boolean names(String sql, String name) {
    String text = sql.toLowerCase(Locale.ROOT);
    String wanted = name.toLowerCase(Locale.ROOT);
    for (int at = text.indexOf(wanted); at >= 0; at = text.indexOf(wanted, at + 1)) {
      int end = at + wanted.length();
      if ((at == 0 || !identifierPart(text.charAt(at - 1)))
          && (end == text.length() || !identifierPart(text.charAt(end)))) {
        return true;
      }
    }
    return false;
  }

  private static boolean identifierPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }

  /** The running action on the driver, or null outside any. */
  public static String currentAction() {
    scala.Option<SparkSession> active = SparkSession.getActiveSession();
    if (active.isEmpty()) {
      active = SparkSession.getDefaultSession();
    }
    if (active.isEmpty()) {
      return null;
    }
    SparkContext context = active.get().sparkContext();
    return context.getLocalProperty(EXECUTION_ID);
  }

  private static final class Read {
    private final String server;
    private final String sql;

    Read(String server, String sql) {
      this.server = server;
      this.sql = sql;
    }
  }
}
