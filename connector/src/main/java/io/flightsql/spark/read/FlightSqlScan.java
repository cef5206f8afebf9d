package io.flightsql.spark.read;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.PlannedEndpoint;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.SessionState;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.metrics.BatchesReceivedMetric;
import io.flightsql.spark.metrics.BytesReceivedMetric;
import io.flightsql.spark.metrics.RowsReceivedMetric;
import io.flightsql.spark.metrics.ServerWaitTimeMetric;
import io.flightsql.spark.metrics.SparkTimeMetric;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.stream.FlightSqlMicroBatchStream;
import io.flightsql.spark.types.ArrowToSpark;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scan of one read and its batch. Without client-side partitioning options it sends the
 * composed query (GetFlightInfo) when Spark plans the job and makes one input partition per
 * FlightEndpoint. With {@code partitionColumn} or {@code predicates} each partition carries its own
 * query (the composed query with the partition's condition in its WHERE), which its executor runs.
 * Driver only; not Serializable (the partitions and reader factory it makes are). Its description,
 * which EXPLAIN and the Spark UI show, lists what was pushed and the SQL sent.
 */
final class FlightSqlScan implements Scan, Batch {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlScan.class);

  private final StructType schema;
  private final StructType sourceSchema;
  private final FlightSqlReadConfig config;
  private final PushedQuery query;
  private final String description;
  // Spark may ask a batch for its partitions more than once while planning one job (copies of
  // the physical plan share this object). Asking the server again would run the query again.
  private InputPartition[] partitions;

  /**
   * @param schema what the scan returns (pruned, or the aggregates)
   * @param sourceSchema the columns of the source relation, in which a partition column is found
   */
  FlightSqlScan(
      StructType schema,
      StructType sourceSchema,
      FlightSqlReadConfig config,
      PushedQuery query,
      String description) {
    this.schema = schema;
    this.sourceSchema = sourceSchema;
    this.config = config;
    this.query = query;
    this.description = description;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  /**
   * The source's new rows as a stream ({@code spark.readStream}), each micro-batch read as this
   * scan reads: see {@link FlightSqlMicroBatchStream}. Spark pushes nothing into a streaming scan.
   */
  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    if (!schema.equals(sourceSchema)) {
      throw new IllegalStateException(
          "Spark pruned the columns of a streaming read of " + config.displayName());
    }
    return FlightSqlMicroBatchStream.open(
        new StreamSourceReads(sourceSchema, config), checkpointLocation);
  }

  @Override
  public synchronized InputPartition[] planInputPartitions() {
    if (partitions == null) {
      partitions =
          config.partitioning().isClientSide() ? clientPartitions() : askServerForPartitions();
    }
    return partitions.clone();
  }

  private InputPartition[] askServerForPartitions() {
    String sql = query.sql();
    List<InputPartition> planned = new ArrayList<>();
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "plan")) {
      if (!query.composed()) {
        // A query sent as the user wrote it: a dbtable is qualified here when the session could
        // not take options catalog and schema as its defaults.
        sql =
            SourceQuery.sql(
                config,
                session.sessionHasDefaults(),
                () -> Dialects.resolve(config.dialect(), session.capabilities()).dialect());
      }
      FlightInfo info =
          session.plan(
              sql, config.queryTimeout().orElse(null), SparkPlanningCancellation.current());
      long plannedAt = System.currentTimeMillis();
      if (query.composed()) {
        checkSchema(info.getSchemaOptional(), sql);
      }
      // The token and cookies of this session go to executors, so that they read its tickets
      // as the same client (a server may keep a ticket to the session it was issued in).
      SessionState state = session.state();
      List<FlightEndpoint> endpoints = info.getEndpoints();
      for (int i = 0; i < endpoints.size(); i++) {
        FlightEndpoint endpoint = endpoints.get(i);
        PlannedEndpoint one =
            PlannedEndpoint.of(
                i, endpoints.size(), endpoint, session.targets(endpoint), sql, plannedAt);
        planned.add(FlightSqlInputPartition.endpoint(one, state));
      }
    }
    LOG.info("Query on {} planned as {} partition(s): {}", config.uri(), planned.size(), sql);
    return planned.toArray(new InputPartition[0]);
  }

  /**
   * Fails planning when the server announces, for the query the connector composed, columns of
   * other types than the scan promised Spark. Readers check each stream too, for servers that
   * announce nothing here.
   */
  private void checkSchema(Optional<Schema> announced, String sql) {
    if (!announced.isPresent() || announced.get().getFields().isEmpty()) {
      return;
    }
    StructType actual;
    try {
      actual = ArrowToSpark.toSparkSchema(announced.get(), config.typeOptions());
    } catch (RuntimeException e) {
      throw mismatch(sql, e.getMessage());
    }
    if (actual.size() != schema.size()) {
      throw mismatch(
          sql, "it has " + actual.size() + " columns where " + schema.size() + " were expected");
    }
    for (int i = 0; i < schema.size(); i++) {
      DataType expected = schema.fields()[i].dataType();
      DataType got = actual.fields()[i].dataType();
      if (!expected.equals(got)) {
        throw mismatch(
            sql,
            "column "
                + (i + 1)
                + " ('"
                + actual.fields()[i].name()
                + "') is "
                + got.simpleString()
                + " where "
                + expected.simpleString()
                + " was expected");
      }
    }
  }

  private FlightSqlConnectorException mismatch(String sql, String detail) {
    return FlightErrors.problem(
        "The server's result for the pushed-down query does not match the schema"
            + " Spark expects: "
            + detail
            + ". Query: "
            + sql
            + ". Set options 'pushDownPredicate', 'pushDownAggregate', 'pushDownLimit',"
            + " 'pushDownOffset' and 'pushDownTopN' to false, or choose another 'dialect'.",
        "UNKNOWN",
        detail);
  }

  private InputPartition[] clientPartitions() {
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
      List<String> conditions = ClientPartitions.conditions(config, sourceSchema, split.dialect());
      // Executors continue this session (token, cookies), as they do the planning session's.
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

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return new CustomMetric[] {
      new RowsReceivedMetric(),
      new BytesReceivedMetric(),
      new BatchesReceivedMetric(),
      new ServerWaitTimeMetric(),
      new SparkTimeMetric()
    };
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new FlightSqlPartitionReaderFactory(schema, config);
  }
}
