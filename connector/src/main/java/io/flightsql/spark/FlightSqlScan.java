package io.flightsql.spark;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.FlightUri;
import io.flightsql.spark.client.SessionState;
import io.flightsql.spark.config.FlightSqlReadConfig;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scan of one read and its batch: sends the query (GetFlightInfo) when Spark plans the job and
 * makes one input partition per FlightEndpoint. Driver only.
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
    return "FlightSQL [uri=" + config.uri() + ", query=" + config.query() + "]";
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public synchronized InputPartition[] planInputPartitions() {
    if (partitions == null) {
      partitions = askServerForPartitions();
    }
    return partitions.clone();
  }

  private InputPartition[] askServerForPartitions() {
    List<InputPartition> planned = new ArrayList<>();
    String query;
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "plan")) {
      query = config.query(session.sessionHasDefaults());
      FlightInfo info = session.execute(query);
      // The token and cookies of this session go to executors, so that they read its tickets
      // as the same client (a server may keep a ticket to the session it was issued in).
      SessionState state = session.state();
      List<FlightEndpoint> endpoints = info.getEndpoints();
      for (int i = 0; i < endpoints.size(); i++) {
        FlightEndpoint endpoint = endpoints.get(i);
        List<FlightUri> targets = session.targets(endpoint);
        planned.add(
            new FlightSqlInputPartition(
                i, endpoints.size(), endpoint.getTicket().getBytes(), targets, query, state));
      }
    }
    LOG.info("Query on {} planned as {} partition(s): {}", config.uri(), planned.size(), query);
    return planned.toArray(new InputPartition[0]);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new FlightSqlPartitionReaderFactory(schema, config);
  }
}
