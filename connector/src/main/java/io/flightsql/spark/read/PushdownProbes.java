package io.flightsql.spark.read;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.ServerFacts;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.types.ComparableColumns;
import java.lang.ref.Cleaner;
import java.util.Collections;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The questions one scan builder asks the server while it decides what to push, over one session
 * opened at the first question and closed by {@link #close()} (the builder's {@code build()}, or
 * its first failure). Driver only; not thread-safe, like the builder.
 *
 * <p>A server that refuses a probe's SQL has answered: that step is not pushed, and Spark does the
 * work, so that pushdown never turns a read that works into one that fails. A failure of the call
 * itself (credentials refused, permission denied, the server out of reach, the call cancelled or
 * out of time) says nothing about the SQL; it is raised as it is, with the server's words, rather
 * than hidden behind "nothing pushed", since the read itself would meet it next.
 *
 * <p>Spark may drop a builder without building it (another rule of the optimizer failing after this
 * builder's pushdown, say); the session of a dropped builder is then closed once the garbage
 * collector finds it unreachable, so that its channel and allocator are not held for the JVM's
 * life.
 */
final class PushdownProbes implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PushdownProbes.class);

  /** A query that returns no row where comparisons with NULL are unknown, as in SQL and Spark. */
  static final String NULL_COMPARISON_PROBE =
      "SELECT 1 AS c FROM (SELECT CAST(NULL AS DOUBLE) AS x) t WHERE x < 1";

  /**
   * A query that returns one row where the server compares strings as Spark does (by code point,
   * case-sensitive, trailing spaces counting), and none where its collation ignores case ({@code
   * 'a' = 'A'}), pads with spaces ({@code 'a' = 'a '}), orders by a language's rules ({@code 'a' <
   * 'B'}, {@code 'é' < 'z'}) or by UTF-16 code units (U+FFFD after U+1F600). Read-only: it selects
   * from no table.
   */
  static final String STRING_ORDER_PROBE =
      "SELECT 1 AS c FROM (SELECT 'a' AS x) t WHERE 'B' < x AND x <> 'A' AND x <> 'a '"
          + " AND 'z' < '\u00e9' AND '\ufffd' < '\ud83d\ude00'";

  /** Closes the sessions of dropped builders; one daemon thread for the JVM. */
  private static final Cleaner DROPPED = Cleaner.create();

  private final FlightSqlReadConfig config;
  private final OpenSession open = new OpenSession();
  private final Cleaner.Cleanable cleanable;
  private boolean closed;

  PushdownProbes(FlightSqlReadConfig config) {
    this.config = config;
    this.cleanable = DROPPED.register(this, open);
  }

  /**
   * The session, apart from the probes that use it, so that closing it after they are dropped does
   * not keep them reachable. Run at most once by the cleaner: by {@link #close()}, or once the
   * probes are unreachable.
   */
  private static final class OpenSession implements Runnable {
    private volatile FlightSqlSession session;
    private volatile boolean closedByOwner;

    @Override
    public void run() {
      FlightSqlSession held = session;
      session = null;
      if (held == null) {
        return;
      }
      if (closedByOwner) {
        held.close();
        return;
      }
      try {
        held.close();
        LOG.debug("Closed the pushdown session of a scan that Spark dropped before building it");
      } catch (RuntimeException e) {
        LOG.warn("Could not close the pushdown session of a dropped scan: {}", e.toString());
      }
    }
  }

  /** The session, opened at the first need. */
  FlightSqlSession session() {
    if (closed) {
      throw new IllegalStateException("The pushdown of " + config.displayName() + " is over");
    }
    if (open.session == null) {
      open.session = FlightSqlSession.open(config.connection(), "pushdown");
    }
    return open.session;
  }

  /**
   * Returns when {@code failure} is the server's answer to what was asked (it refused the SQL);
   * raises it when it is a failure of the call itself.
   */
  void raiseUnlessAnswer(RuntimeException failure) {
    if (!FlightErrors.isAboutTheCall(failure)) {
      return;
    }
    throw failure instanceof FlightSqlConnectorException
        ? failure
        : FlightErrors.rpcFailed("GetFlightInfo", config.uri(), failure);
  }

  /**
   * Whether the server takes {@code candidate}: whether it runs it with {@code 1 = 0} added, which
   * returns no row; remembered per server and query ({@link ServerFacts}). A refusal is logged as a
   * warning naming the refused SQL.
   */
  boolean takes(PushedQuery candidate) {
    String probe = candidate.where(Collections.singletonList("(1 = 0)")).sql();
    return ServerFacts.of(config.connection())
        .takes(
            probe,
            () -> {
              try {
                session().resultSchema(probe);
                return true;
              } catch (RuntimeException e) {
                raiseUnlessAnswer(e);
                LOG.warn(
                    "Not pushed into the read of {}: {} refused {} ({}); Spark does that work"
                        + " instead",
                    config.displayName(),
                    config.uri(),
                    probe,
                    e.getMessage());
                return false;
              }
            });
  }

  /**
   * What the server answers an aggregated query with, asked as Spark's JDBC source does: the schema
   * of {@code candidate} with {@code 1 = 0} added, without computing it. Empty when the server
   * refuses it, or answers other columns than {@code expected}, the types Spark's own aggregates
   * have (Spark would cast the server's answer, which is not its own: an AVG of INTEGERs answered
   * as an INTEGER), or columns the connector converts, or (with {@code oneRowOverNothing}) answers
   * aggregates over no rows with no row.
   */
  Optional<StructType> aggregateSchema(
      PushedQuery candidate, StructType expected, boolean oneRowOverNothing) {
    String probe = candidate.where(Collections.singletonList("(1 = 0)")).sql();
    Schema arrow;
    try {
      arrow = session().resultSchema(probe);
    } catch (RuntimeException e) {
      raiseUnlessAnswer(e);
      LOG.info("Aggregates not pushed: the server refused {}: {}", probe, e.getMessage());
      return Optional.empty();
    }
    StructType result;
    try {
      result = ArrowToSpark.toSparkSchema(arrow, config.typeOptions());
    } catch (RuntimeException e) {
      LOG.info("Aggregates not pushed: Spark cannot read {}'s answer: {}", probe, e.getMessage());
      return Optional.empty();
    }
    if (result.size() != expected.size()
        || ComparableColumns.of(arrow, result).size() != result.size()) {
      LOG.info("Aggregates not pushed: the server answers {} with {}", probe, arrow);
      return Optional.empty();
    }
    for (int i = 0; i < expected.size(); i++) {
      DataType spark = expected.fields()[i].dataType();
      DataType server = result.fields()[i].dataType();
      if (!spark.equals(server)) {
        LOG.info(
            "Aggregates not pushed into the read of {}: column {} of {} is {} ({}) where Spark's"
                + " own aggregate is {}",
            config.displayName(),
            i + 1,
            probe,
            server.simpleString(),
            arrow.getFields().get(i).getType(),
            spark.simpleString());
        return Optional.empty();
      }
    }
    if (oneRowOverNothing && !oneRowOfNothing(probe)) {
      return Optional.empty();
    }
    return Optional.of(result);
  }

  /**
   * Whether the server answers aggregates without GROUP BY over no rows with one row, as SQL and
   * Spark do (COUNT 0, the others NULL). Some do not (Deephaven answers none), and Spark would then
   * show no row where it should show one.
   */
  private boolean oneRowOfNothing(String probe) {
    return ServerFacts.of(config.connection())
        .takes(
            "one row of: " + probe,
            () -> {
              long rows;
              try {
                rows = session().countRows(probe);
              } catch (RuntimeException e) {
                raiseUnlessAnswer(e);
                LOG.info("Aggregates not pushed: the server refused {}: {}", probe, e.getMessage());
                return false;
              }
              if (rows != 1) {
                LOG.warn(
                    "Aggregates not pushed into the read of {}: {} answers {} with {} rows, where SQL"
                        + " and Spark give one",
                    config.displayName(),
                    config.uri(),
                    probe,
                    rows);
              }
              return rows == 1;
            });
  }

  /**
   * Whether the server finds {@code NULL < 1} unknown, as SQL and Spark do; remembered per server.
   * A server that refuses the probe is taken not to.
   */
  boolean nullsCompareAsInSql() {
    return ServerFacts.of(config.connection())
        .takes(
            "nulls: " + NULL_COMPARISON_PROBE,
            () -> {
              try {
                long rows = session().countRows(NULL_COMPARISON_PROBE);
                if (rows != 0) {
                  LOG.warn(
                      "{} finds NULL < 1 true (probe: {}): columns that may hold NULLs are not"
                          + " compared in SQL pushed to it",
                      config.uri(),
                      NULL_COMPARISON_PROBE);
                }
                return rows == 0;
              } catch (RuntimeException e) {
                raiseUnlessAnswer(e);
                LOG.warn(
                    "{} refused the probe {} ({}): columns that may hold NULLs are not compared in"
                        + " SQL pushed to it",
                    config.uri(),
                    NULL_COMPARISON_PROBE,
                    e.getMessage());
                return false;
              }
            });
  }

  /**
   * Whether the server compares strings as Spark does ({@link #STRING_ORDER_PROBE} returns its one
   * row); remembered per server. A server that refuses the probe is taken not to. This is the
   * collation of the server's string constants: a column declared with a collation of its own is
   * not seen.
   */
  boolean stringsCompareAsInSpark() {
    return ServerFacts.of(config.connection())
        .takes(
            "strings: " + STRING_ORDER_PROBE,
            () -> {
              try {
                long rows = session().countRows(STRING_ORDER_PROBE);
                if (rows != 1) {
                  LOG.info(
                      "{} does not compare strings as Spark does (probe: {}): string columns are"
                          + " not compared, ordered or grouped in SQL pushed to it",
                      config.uri(),
                      STRING_ORDER_PROBE);
                }
                return rows == 1;
              } catch (RuntimeException e) {
                raiseUnlessAnswer(e);
                LOG.info(
                    "{} refused the probe {} ({}): string columns are not compared, ordered or"
                        + " grouped in SQL pushed to it",
                    config.uri(),
                    STRING_ORDER_PROBE,
                    e.getMessage());
                return false;
              }
            });
  }

  /**
   * Closes the session after {@code failure} ended the pushdown, keeping a failure to close as
   * suppressed.
   */
  void closeAfter(Throwable failure) {
    try {
      close();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /** Closes the session, which fails if any of its Arrow memory is still held; idempotent. */
  @Override
  public void close() {
    closed = true;
    open.closedByOwner = true;
    cleanable.clean();
  }
}
