package io.flightsql.spark;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.FlightUri;
import io.flightsql.spark.config.FlightSqlReadConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scan of one read and its batch. Without client-side partitioning options it sends the query
 * (GetFlightInfo) when Spark plans the job and makes one input partition per FlightEndpoint. With
 * {@code partitionColumn} or {@code predicates} it sends nothing but GetSqlInfo (for the
 * identifier quote of a partition column): each partition carries its own query, which its
 * executor runs. Driver only.
 */
final class FlightSqlScan implements Scan, Batch {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlScan.class);

  private final StructType schema;
  private final FlightSqlReadConfig config;
  // Spark may ask a batch for its partitions more than once while planning one job (copies of
  // the physical plan share this object). Asking the server again would run the query again.
  private InputPartition[] partitions;

  FlightSqlScan(StructType schema, FlightSqlReadConfig config) {
    this.schema = schema;
    this.config = config;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    String partitioning =
        config.partitioning().isClientSide() ? ", " + config.partitioning() : "";
    return "FlightSQL [uri=" + config.uri() + ", query=" + config.query() + partitioning + "]";
  }

  @Override
  public Batch toBatch() {
    return this;
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
    List<InputPartition> planned = new ArrayList<>();
    try (FlightSqlSession session = FlightSqlSession.open(config.uri(), "plan")) {
      FlightInfo info = session.execute(config.query());
      List<FlightEndpoint> endpoints = info.getEndpoints();
      for (int i = 0; i < endpoints.size(); i++) {
        FlightEndpoint endpoint = endpoints.get(i);
        List<FlightUri> targets = session.targets(endpoint);
        planned.add(
            FlightSqlInputPartition.endpoint(
                i, endpoints.size(), endpoint.getTicket().getBytes(), targets));
      }
    }
    LOG.info(
        "Query on {} planned as {} partition(s): {}", config.uri(), planned.size(), config.query());
    return planned.toArray(new InputPartition[0]);
  }

  private InputPartition[] clientPartitions() {
    String[] quote = new String[1];
    Supplier<String> identifierQuote =
        () -> {
          if (quote[0] == null) {
            try (FlightSqlSession session = FlightSqlSession.open(config.uri(), "plan")) {
              quote[0] = session.capabilities().identifierQuote();
            }
          }
          return quote[0];
        };
    List<String> queries = ClientPartitions.queries(config, schema, identifierQuote);
    InputPartition[] planned = new InputPartition[queries.size()];
    for (int i = 0; i < planned.length; i++) {
      planned[i] = FlightSqlInputPartition.query(i, planned.length, queries.get(i), config.uri());
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
    return new CustomMetric[] {new RowsReceivedMetric(), new BytesReceivedMetric()};
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new FlightSqlPartitionReaderFactory(schema, config);
  }
}
