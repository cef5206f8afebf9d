package io.flightsql.spark.read;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.transport.SessionState;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.config.OptionReader;
import io.flightsql.spark.config.ReadOptions;
import io.flightsql.spark.config.ReadPartitioning;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.sql.ColumnPartitioning;
import io.flightsql.spark.sql.ColumnPartitioning.ColumnKind;
import io.flightsql.spark.sql.PushedQuery;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queries of a read that the client splits ({@code partitionColumn} or {@code predicates}):
 * finds the partition column in the read's schema as Spark resolves names, and turns its ranges or
 * the given conditions into one query per partition. Driver only.
 */
final class ClientPartitions {
  private static final Logger LOG = LoggerFactory.getLogger(ClientPartitions.class);

  private ClientPartitions() {}

  /**
   * One input partition per WHERE condition of the split, each running {@code query} with its
   * condition ANDed to the filters over the source rows. The executors continue the driver's
   * session (token, cookies).
   *
   * @param schema the source's columns, in which the partition column is found
   */
  static InputPartition[] partitions(
      FlightSqlReadConfig config, PushedQuery query, StructType schema) {
    InputPartition[] planned;
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "plan")) {
      PushedQuery split = query;
      if (!query.composed()) {
        // Nothing pushed, so nothing established the dialect: the partition conditions need it.
        ResolvedDialect resolved = Dialects.resolve(config.dialect(), session.capabilities());
        if (!resolved.quotingKnown()) {
          throw new IllegalArgumentException(
              "Option 'partitionColumn' splits the read with conditions that name the column in"
                  + " SQL, but "
                  + config.uri()
                  + " does not say how it quotes identifiers (GetSqlInfo), and a probe query could"
                  + " not tell. Set option 'dialect' (one of "
                  + Dialects.names()
                  + "), or read without 'partitionColumn'.");
        }
        Dialect dialect = resolved.dialect();
        boolean defaults = session.sessionHasDefaults();
        split =
            PushedQuery.over(
                dialect,
                SourceQuery.sql(config, defaults, () -> dialect),
                SourceQuery.table(config, defaults, () -> dialect).orElse(null));
      }
      List<String> conditions = conditions(config, schema, split.dialect());
      SessionState state = session.state();
      planned = new InputPartition[conditions.size()];
      for (int i = 0; i < planned.length; i++) {
        planned[i] =
            FlightSqlInputPartition.query(i, split.sql(conditions.get(i)), config.uri(), state);
      }
    }
    LOG.info(
        "Read of {} on {} split by the client into {} partition(s) ({})",
        config.displayName(),
        config.uri(),
        planned.length,
        config.partitioning());
    return planned;
  }

  /**
   * One WHERE condition per partition, in order, over the columns of the source relation; the
   * scan's composed query ANDs each into its own WHERE.
   *
   * @param schema the source's columns, before column pruning: the partition column need not be
   *     read
   * @param dialect the read's dialect, which quotes the partition column
   */
  static List<String> conditions(FlightSqlReadConfig config, StructType schema, Dialect dialect) {
    ReadPartitioning partitioning = config.partitioning();
    List<String> conditions;
    if (partitioning.predicates().isPresent()) {
      conditions = partitioning.predicates().get();
    } else {
      StructField field = resolve(partitioning.column().get(), schema, dialect);
      ColumnKind kind = kind(field);
      DataType boundType = boundType(kind);
      LongFunction<String> literal =
          bound ->
              dialect
                  .literal(bound, boundType)
                  .orElseThrow(() -> unwritableBound(field, bound, dialect));
      ColumnPartitioning ranges =
          ColumnPartitioning.plan(
              dialect.quoted(field.name()),
              kind,
              literal,
              partitioning.lowerBound(),
              partitioning.upperBound(),
              partitioning.numPartitions(),
              ZoneId.of(SQLConf.get().sessionLocalTimeZone()));
      if (ranges.reduced()) {
        LOG.warn(
            "Reading {} in {} partitions instead of numPartitions={}: the range from lowerBound {}"
                + " to upperBound {} has fewer values",
            config.displayName(),
            ranges.clauses().size(),
            ranges.requested(),
            partitioning.lowerBound(),
            partitioning.upperBound());
      }
      conditions = ranges.clauses();
    }
    return conditions;
  }

  /**
   * The field named by option {@code partitionColumn}: its name as Spark matches names (case
   * insensitively unless {@code spark.sql.caseSensitive}), or that name in the server's quotes, as
   * Spark's JDBC source also accepts.
   */
  private static StructField resolve(String name, StructType schema, Dialect dialect) {
    boolean caseSensitive = SQLConf.get().caseSensitiveAnalysis();
    List<StructField> matches = new ArrayList<>();
    for (StructField field : schema.fields()) {
      String quoted = dialect.identifier(field.name()).orElse(null);
      boolean same =
          caseSensitive
              ? field.name().equals(name) || name.equals(quoted)
              : field.name().equalsIgnoreCase(name) || name.equalsIgnoreCase(quoted);
      if (same) {
        matches.add(field);
      }
    }
    if (matches.size() == 1) {
      return matches.get(0);
    }
    String why =
        matches.isEmpty()
            ? "the query's result has no such column; its columns are "
                + String.join(", ", schema.fieldNames())
            : "it matches " + matches.size() + " columns; set spark.sql.caseSensitive=true";
    throw OptionReader.invalid(ReadOptions.PARTITION_COLUMN, name, why);
  }

  private static ColumnKind kind(StructField field) {
    DataType type = field.dataType();
    if (type instanceof ByteType
        || type instanceof ShortType
        || type instanceof IntegerType
        || type instanceof LongType
        || type instanceof DecimalType
        || type instanceof FloatType
        || type instanceof DoubleType) {
      return ColumnKind.NUMBER;
    }
    if (type instanceof DateType) {
      return ColumnKind.DATE;
    }
    if (type instanceof TimestampType) {
      return ColumnKind.TIMESTAMP;
    }
    if (type instanceof TimestampNTZType) {
      return ColumnKind.TIMESTAMP_NTZ;
    }
    throw OptionReader.invalid(
        ReadOptions.PARTITION_COLUMN,
        field.name(),
        "column '"
            + field.name()
            + "' is "
            + type.catalogString()
            + "; a partition column must be numeric, date or timestamp");
  }

  /** The Spark type of a partition column's bounds, as {@link ColumnPartitioning} holds them. */
  private static DataType boundType(ColumnKind kind) {
    switch (kind) {
      case DATE:
        return DataTypes.DateType;
      case TIMESTAMP:
        return DataTypes.TimestampType;
      case TIMESTAMP_NTZ:
        return DataTypes.TimestampNTZType;
      default:
        return DataTypes.LongType;
    }
  }

  private static IllegalArgumentException unwritableBound(
      StructField field, long bound, Dialect dialect) {
    return OptionReader.invalid(
        ReadOptions.PARTITION_COLUMN,
        field.name(),
        "dialect '"
            + dialect.name()
            + "' cannot write a bound of the "
            + field.dataType().catalogString()
            + " column '"
            + field.name()
            + "' ("
            + bound
            + " as the partitioning holds it) so that the server compares it as Spark does;"
            + " partition by a numeric column, or split the read with 'predicates'");
  }
}
