package io.flightsql.spark.read;

import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.sql.AggregateSql;
import io.flightsql.spark.sql.ExpressionSql;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.sql.SourceColumns;
import io.flightsql.spark.types.ComparableColumns;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What pushing into one read needs: the server's dialect as it was established, the source's
 * columns in it, and whether the session took options catalog and schema as its defaults. Found on
 * the driver the first time something could be pushed; a server that cannot tell gets nothing
 * pushed, and a server that cannot be asked fails the read with its own error ({@link
 * PushdownProbes}).
 */
final class PushdownContext {
  private static final Logger LOG = LoggerFactory.getLogger(PushdownContext.class);

  /** The servers whose unknown quoting was logged, so that it is logged once per JVM. */
  private static final Set<FlightUri> UNKNOWN_QUOTING_LOGGED = ConcurrentHashMap.newKeySet();

  final ResolvedDialect resolved;
  final Dialect dialect;
  final SourceColumns columns;
  final ExpressionSql expressions;
  final AggregateSql aggregates;

  /**
   * Whether sessions on this server take options catalog and schema as their defaults; where they
   * do not, the composed query names them as qualifiers of the table.
   */
  final boolean sessionHasDefaults;

  private PushdownContext(
      ResolvedDialect resolved, SourceColumns columns, boolean sessionHasDefaults) {
    this.resolved = resolved;
    this.dialect = resolved.dialect();
    this.columns = columns;
    this.expressions = new ExpressionSql(dialect, columns);
    this.aggregates = new AggregateSql(dialect, columns, SQLConf.get().ansiEnabled());
    this.sessionHasDefaults = sessionHasDefaults;
  }

  /** This context over other columns: those of two reads joined on the server. */
  PushdownContext over(SourceColumns joined) {
    return new PushdownContext(resolved, joined, sessionHasDefaults);
  }

  /**
   * Asks the server what pushing needs, or null when nothing may be pushed into this read.
   *
   * @param knownComparable the columns whose values the server compares as Spark does, when the
   *     table knows its Arrow schema; null to ask the server
   * @param knownDialect the table's dialect once a read of it found it, shared by its scans
   * @throws FlightSqlConnectorException when a call fails for a reason that is not an answer (see
   *     {@link PushdownProbes})
   */
  static PushdownContext resolve(
      FlightSqlReadConfig config,
      StructType schema,
      Set<String> knownComparable,
      AtomicReference<ResolvedDialect> knownDialect,
      PushdownProbes probes) {
    try {
      ResolvedDialect resolved = knownDialect.get();
      if (resolved == null) {
        resolved = Dialects.resolve(config.dialect(), probes.session().capabilities());
        knownDialect.set(resolved);
      }
      if (!resolved.quotingKnown()) {
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
      Dialect chosen = resolved.dialect();
      boolean defaults = probes.session().sessionHasDefaults();
      Set<String> comparable = knownComparable;
      if (comparable == null) {
        Schema arrow =
            probes.session().resultSchema(SourceQuery.sql(config, defaults, () -> chosen));
        comparable = ComparableColumns.of(arrow, schema);
      }
      if (resolved.sqlGuessed() && !probes.nullsCompareAsInSql()) {
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
      // Strings are compared, ordered and grouped on the server only where it does so as Spark
      // does: a dialect that the user or the server's name established says whether it does,
      // else a probe.
      boolean known = !resolved.sqlGuessed();
      boolean stringsAsSpark =
          (known && chosen.comparesStringsAsSpark())
              || (!(known && chosen.comparesStringsOtherwise())
                  && hasStrings(schema, comparable)
                  && probes.stringsCompareAsInSpark());
      SourceColumns columns = new SourceColumns(schema, comparable, chosen, stringsAsSpark);
      if (!columns.addressable()) {
        LOG.info(
            "Nothing is pushed into the read of {}: its column names repeat or cannot be quoted",
            config.displayName());
        return null;
      }
      LOG.debug("Pushdown into {} uses dialect {}", config.displayName(), resolved);
      return new PushdownContext(resolved, columns, defaults);
    } catch (FlightSqlConnectorException e) {
      probes.raiseUnlessAnswer(e);
      LOG.warn(
          "Nothing is pushed into the read of {}: the server did not describe it ({})",
          config.displayName(),
          e.getMessage());
      return null;
    }
  }

  /** Whether one of the comparable columns is a string, so that the string probe matters. */
  private static boolean hasStrings(StructType schema, Set<String> comparable) {
    for (StructField field : schema.fields()) {
      if (field.dataType() instanceof StringType && comparable.contains(field.name())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The columns Spark needs ({@code required}, or all when null) of {@code schema}, each with its
   * whole type (nested fields are not pruned on the server); when Spark needs none, the narrowest
   * one, since a result has at least one column.
   */
  StructType prunedSchema(StructType schema, StructType required) {
    if (required == null) {
      return schema;
    }
    List<StructField> fields = new ArrayList<>();
    for (StructField field : required.fields()) {
      columns
          .resolve(new String[] {field.name()})
          .ifPresent(column -> fields.add(schema.fields()[schema.fieldIndex(column.name())]));
    }
    if (fields.isEmpty() && schema.size() > 0) {
      StructField narrowest = schema.fields()[0];
      for (StructField field : schema.fields()) {
        if (field.dataType().defaultSize() < narrowest.dataType().defaultSize()) {
          narrowest = field;
        }
      }
      fields.add(narrowest);
    }
    return new StructType(fields.toArray(new StructField[0]));
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
