package io.flightsql.spark.read;

import io.flightsql.spark.client.PlannedEndpoint;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.metrics.BatchesReceivedMetric;
import io.flightsql.spark.metrics.BytesReceivedMetric;
import io.flightsql.spark.metrics.RowsReceivedMetric;
import io.flightsql.spark.metrics.ServerWaitTimeMetric;
import io.flightsql.spark.metrics.SparkTimeMetric;
import io.flightsql.spark.sql.RuntimeFilterSql;
import io.flightsql.spark.stream.FlightSqlMicroBatchStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scan of one read and its batch. Without client-side partitioning options the driver plans the
 * composed query (GetFlightInfo) and makes one input partition per FlightEndpoint. With {@code
 * partitionColumn} or {@code predicates} each partition carries its own query (the composed query
 * with the partition's condition in its WHERE), which its executor runs. Which plan serves the
 * partitions, the statistics and the runtime filters is {@link ScanPlan}'s business: the query is
 * planned once for all three. Driver only; not Serializable (the partitions and reader factory it
 * makes are). Its description, which EXPLAIN and the Spark UI show, lists what was pushed and the
 * SQL sent.
 *
 * <p>It tells Spark's optimizer the read's size ({@link #estimateStatistics()}: the rows and bytes
 * the server gives, option {@code statistics}), and takes runtime filters ({@link #filter}: the
 * keys a join found on its other side, option {@code pushDownRuntimeFilter}).
 */
final class FlightSqlScan
    implements Scan, Batch, SupportsReportStatistics, SupportsRuntimeV2Filtering {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlScan.class);

  private final StructType schema;
  private final FlightSqlReadConfig config;
  private final ScanDescription description;
  private final ScanPlan plan;

  /** How runtime filters are written; null where this read takes none. */
  private final RuntimeFilterSql runtimeFilters;

  /** Whether each query of the read is an aggregate without GROUP BY, which has one row. */
  private final boolean oneRow;

  /**
   * @param schema what the scan returns (pruned, or the aggregates)
   * @param runtimeFilters how runtime filters on the columns of {@code schema} are written, or null
   *     where the read takes none (a pushed aggregate, limit, offset or top-N, or option {@code
   *     pushDownRuntimeFilter} off)
   * @param oneRow whether the query pushed is an aggregate without GROUP BY, whose answer is one
   *     row: read in one partition, which checks it ({@link FlightSqlPartitionReader})
   */
  FlightSqlScan(
      StructType schema,
      FlightSqlReadConfig config,
      ScanPlan plan,
      RuntimeFilterSql runtimeFilters,
      ScanDescription description,
      boolean oneRow) {
    this.schema = schema;
    this.config = config;
    this.plan = plan;
    this.runtimeFilters = runtimeFilters;
    this.description = description;
    this.oneRow = oneRow;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  /** What was pushed, and the SQL sent now: with the runtime filters once Spark gave them. */
  @Override
  public String description() {
    return description.text(schema, plan.query().sql());
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
    StructType sourceSchema = plan.sourceSchema();
    if (!schema.equals(sourceSchema)) {
      throw new IllegalStateException(
          "Spark pruned the columns of a streaming read of " + config.displayName());
    }
    return FlightSqlMicroBatchStream.open(
        new StreamSourceReads(sourceSchema, config), checkpointLocation);
  }

  /**
   * The partitions of the plan. An aggregate without GROUP BY that the server planned as several
   * endpoints is read as one partition that reads them one after the other: only a reader of all
   * its rows can check that there is one.
   */
  @Override
  public InputPartition[] planInputPartitions() {
    InputPartition[] partitions = plan.partitions();
    if (!oneRow || partitions.length == 1 || config.partitioning().isClientSide()) {
      return partitions;
    }
    if (partitions.length == 0) {
      throw FlightSqlPartitionReader.notOneRow(
          0, "the server planned no endpoint for", plan.query().sql());
    }
    List<PlannedEndpoint> endpoints = new ArrayList<>();
    for (InputPartition partition : partitions) {
      endpoints.add(((FlightSqlInputPartition) partition).endpoint());
    }
    LOG.debug(
        "The aggregate of {} has {} endpoints: one partition reads them all",
        config.displayName(),
        partitions.length);
    FlightSqlInputPartition first = (FlightSqlInputPartition) partitions[0];
    return new InputPartition[] {
      FlightSqlInputPartition.endpoints(endpoints, first.session(), first.action())
    };
  }

  /**
   * The rows and bytes of the read as the server gives them with the planned query; the bytes,
   * where it gives only rows, as Spark estimates a relation of known rows: 8 bytes a row and each
   * column's default size (see docs/pushdown.md). Nothing where the server says nothing.
   */
  @Override
  public Statistics estimateStatistics() {
    return ScanStatistics.of(plan.figures(), schema);
  }

  /**
   * The columns Spark may filter at run time: those whose values the server compares as Spark does
   * and whose literals the dialect writes, with a name no other column shares in another case.
   */
  @Override
  public NamedReference[] filterAttributes() {
    if (runtimeFilters == null) {
      return new NamedReference[0];
    }
    Map<String, Integer> folded = new HashMap<>();
    for (StructField field : schema.fields()) {
      folded.merge(field.name().toLowerCase(Locale.ROOT), 1, Integer::sum);
    }
    List<NamedReference> columns = new ArrayList<>();
    for (StructField field : schema.fields()) {
      if (folded.get(field.name().toLowerCase(Locale.ROOT)) == 1
          && runtimeFilters.filterable(field.name())) {
        columns.add(FieldReference.column(field.name()));
      }
    }
    return columns.toArray(new NamedReference[0]);
  }

  /**
   * Adds the runtime filters the dialect can write to the query, which is then planned again before
   * its partitions are read; the others are left out, which only reads more rows than the join
   * keeps.
   */
  @Override
  public void filter(Predicate[] predicates) {
    if (runtimeFilters == null) {
      return;
    }
    List<String> conditions = new ArrayList<>();
    for (Predicate predicate : predicates) {
      runtimeFilters.condition(predicate).ifPresent(conditions::add);
    }
    if (plan.restrict(conditions)) {
      LOG.info(
          "Runtime filter of the read of {} on {}: {}",
          config.displayName(),
          config.uri(),
          conditions.isEmpty() ? "none can be written" : String.join(" AND ", conditions));
    }
  }

  /**
   * Spark asks for the driver's figures when it makes the scan's RDD for a job, never for an
   * EXPLAIN: the plan of the partitions is then read, and not cancelled ({@link ScanPlan}). The
   * driver reports no figure of its own.
   */
  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    plan.running();
    return new CustomTaskMetric[0];
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
    return new FlightSqlPartitionReaderFactory(schema, config, oneRow);
  }
}
