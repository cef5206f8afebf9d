package io.flightsql.spark.read;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.ServerFacts;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.sql.ExpressionSql;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.sql.SourceColumns;
import io.flightsql.spark.types.ComparableColumns;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What pushing into one read needs: the server's dialect, the source's columns in it, and whether
 * the session took options catalog and schema as its defaults. Found on the driver the first time
 * something could be pushed; a server that cannot tell gets nothing pushed.
 */
final class PushdownContext {
  private static final Logger LOG = LoggerFactory.getLogger(PushdownContext.class);

  /** The servers whose unknown quoting was logged, so that it is logged once per JVM. */
  private static final Set<FlightUri> UNKNOWN_QUOTING_LOGGED = ConcurrentHashMap.newKeySet();

  final Dialect dialect;
  final SourceColumns columns;
  final ExpressionSql expressions;

  /**
   * Whether sessions on this server take options catalog and schema as their defaults; where they
   * do not, the composed query names them as qualifiers of the table.
   */
  final boolean sessionHasDefaults;

  private PushdownContext(Dialect dialect, SourceColumns columns, boolean sessionHasDefaults) {
    this.dialect = dialect;
    this.columns = columns;
    this.expressions = new ExpressionSql(dialect, columns);
    this.sessionHasDefaults = sessionHasDefaults;
  }

  /**
   * Asks the server what pushing needs, or null when nothing may be pushed into this read.
   *
   * @param knownComparable the columns whose values the server compares as Spark does, when the
   *     table knows its Arrow schema; null to ask the server
   * @param knownDialect the table's dialect once a read of it found it, shared by its scans
   */
  static PushdownContext resolve(
      FlightSqlReadConfig config,
      StructType schema,
      Set<String> knownComparable,
      AtomicReference<Dialect> knownDialect) {
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "pushdown")) {
      Dialect dialect = knownDialect.get();
      if (dialect == null) {
        dialect = Dialects.resolve(config.dialect(), session.capabilities());
        knownDialect.set(dialect);
      }
      if (!dialect.quotingKnown()) {
        if (UNKNOWN_QUOTING_LOGGED.add(config.uri())) {
          LOG.warn(
              "Nothing is pushed into reads of {}: the server does not say how it quotes"
                  + " identifiers (GetSqlInfo SQL_IDENTIFIER_QUOTE_CHAR), and a probe query could"
                  + " not tell, so a quoted column name might be read as a string. Set option"
                  + " 'dialect' (one of {}) to push filters, aggregates and limits.",
              config.uri(),
              Dialects.names());
        }
        return null;
      }
      Dialect chosen = dialect;
      Set<String> comparable = knownComparable;
      if (comparable == null) {
        String sql = SourceQuery.sql(config, session.sessionHasDefaults(), () -> chosen);
        Schema arrow = session.resultSchema(sql);
        comparable = ComparableColumns.of(arrow, schema);
      }
      if (dialect.sqlGuessed() && !nullsCompareAsInSql(session, config)) {
        // Such a server may find a NULL smaller than 1.0 (Deephaven's NULL is the smallest
        // value), where SQL and Spark find the comparison unknown: only columns without NULLs
        // can be compared there.
        Set<String> notNull = new HashSet<>();
        for (StructField field : schema.fields()) {
          if (!field.nullable() && comparable.contains(field.name())) {
            notNull.add(field.name());
          }
        }
        comparable = notNull;
      }
      SourceColumns columns = new SourceColumns(schema, comparable, dialect);
      if (!columns.addressable()) {
        LOG.info(
            "Nothing is pushed into the read of {}: its column names repeat or cannot be quoted",
            config.displayName());
        return null;
      }
      LOG.debug("Pushdown into {} uses dialect {}", config.displayName(), dialect);
      return new PushdownContext(dialect, columns, session.sessionHasDefaults());
    } catch (FlightSqlConnectorException e) {
      LOG.warn(
          "Nothing is pushed into the read of {}: the server did not describe itself ({})",
          config.displayName(),
          e.getMessage());
      return null;
    }
  }

  /** A query that returns no row where comparisons with NULL are unknown, as in SQL and Spark. */
  static final String NULL_COMPARISON_PROBE =
      "SELECT 1 AS c FROM (SELECT CAST(NULL AS DOUBLE) AS x) t WHERE x < 1";

  /**
   * Whether the server finds {@code NULL < 1} unknown, as SQL and Spark do: tried once per server
   * in this JVM where the dialect is a guess. A server that refuses the probe is taken not to.
   */
  private static boolean nullsCompareAsInSql(FlightSqlSession session, FlightSqlReadConfig config) {
    return ServerFacts.of(config.connection())
        .takes(
            "nulls: " + NULL_COMPARISON_PROBE,
            () -> {
              try {
                long rows = session.countRows(NULL_COMPARISON_PROBE);
                if (rows != 0) {
                  LOG.warn(
                      "{} finds NULL < 1 true (probe: {}): columns that may hold NULLs are not"
                          + " compared in SQL pushed to it",
                      config.uri(),
                      NULL_COMPARISON_PROBE);
                }
                return rows == 0;
              } catch (FlightSqlConnectorException e) {
                LOG.warn(
                    "{} {} the probe {} ({}): columns that may hold NULLs are not compared in SQL"
                        + " pushed to it",
                    config.uri(),
                    FlightErrors.isAboutTheCall(e) ? "could not run" : "refused",
                    NULL_COMPARISON_PROBE,
                    e.getMessage());
                // A refusal is the server's answer; a failure of the call is not remembered.
                return FlightErrors.isAboutTheCall(e) ? null : Boolean.FALSE;
              }
            });
  }

  /**
   * The read's query with nothing pushed yet, in this context's dialect; without a context (null),
   * the plain source, which the scan qualifies itself once it has a session.
   */
  static PushedQuery base(PushdownContext context, FlightSqlReadConfig config) {
    if (context == null) {
      Dialect ansi = Dialects.named("ansi", null);
      return PushedQuery.over(
          ansi, SourceQuery.sql(config, true, () -> ansi), config.table().orElse(null));
    }
    boolean defaults = context.sessionHasDefaults;
    return PushedQuery.over(
        context.dialect,
        SourceQuery.sql(config, defaults, () -> context.dialect),
        SourceQuery.table(config, defaults, () -> context.dialect).orElse(null));
  }
}
