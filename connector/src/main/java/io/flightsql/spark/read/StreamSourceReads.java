package io.flightsql.spark.read;

import io.flightsql.spark.client.transport.SessionState;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.sql.SourceColumns;
import io.flightsql.spark.stream.SourceReads;
import io.flightsql.spark.types.ComparableColumns;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The batch read of a source, as a stream reads through it ({@link SourceReads}): the pushdown
 * context a scan builder would find (the dialect as it was established, the source's columns and
 * which of them compare as in Spark), the partitions of a {@link FlightSqlScan} of each
 * micro-batch's query, its reader factory, and its readers run on the driver for the stream's own
 * queries. Driver only.
 */
final class StreamSourceReads implements SourceReads {
  private final StructType schema;
  private final FlightSqlReadConfig config;
  private PushdownContext context;
  private SourceColumns columns;

  StreamSourceReads(StructType schema, FlightSqlReadConfig config) {
    this.schema = schema;
    this.config = config;
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public FlightSqlReadConfig config() {
    return config;
  }

  /**
   * The dialect, and the source's columns with those whose values the server holds as Spark reads
   * them: the stream's conditions exclude NULLs themselves, so a server that finds NULL below every
   * value (Deephaven) compares the rest as Spark does too, unlike a pushed filter's.
   */
  private synchronized PushdownContext context() {
    if (context == null) {
      PushdownContext found;
      try (PushdownProbes probes = new PushdownProbes(config)) {
        found =
            PushdownContext.resolve(
                config,
                schema,
                Collections.emptySet(),
                new AtomicReference<ResolvedDialect>(),
                probes);
        if (found != null) {
          Schema arrow =
              probes
                  .session()
                  .resultSchema(
                      SourceQuery.sql(config, found.sessionHasDefaults, () -> found.dialect));
          columns =
              new SourceColumns(
                  schema,
                  ComparableColumns.of(arrow, schema),
                  found.dialect,
                  found.columns.stringsAsSpark());
        }
      }
      if (found == null) {
        throw new IllegalArgumentException(
            "A stream of "
                + config.displayName()
                + " selects each micro-batch's rows with a condition on its offset column, and "
                + config.uri()
                + " does not say how it quotes identifiers (GetSqlInfo), or the source's column"
                + " names cannot be quoted, so no condition can name the column. Set option"
                + " 'dialect' (one of "
                + Dialects.names()
                + ").");
      }
      context = found;
    }
    return context;
  }

  @Override
  public PushedQuery source() {
    return PushdownContext.base(context(), config);
  }

  @Override
  public synchronized SourceColumns columns() {
    context();
    return columns;
  }

  @Override
  public InputPartition[] partitions(PushedQuery query) {
    // The stream's own query, in the dialect its conditions were written in; no statistics.
    return new ScanPlan(config, query, schema, schema, true).partitions();
  }

  @Override
  public PartitionReaderFactory readerFactory() {
    return new FlightSqlPartitionReaderFactory(schema, config, false);
  }

  @Override
  public List<InternalRow> rowsOnDriver(PushedQuery query, StructType answer) {
    List<InternalRow> rows = new ArrayList<>();
    FlightSqlInputPartition partition =
        FlightSqlInputPartition.query(0, query.sql(), config.uri(), SessionState.empty());
    try (FlightSqlPartitionReader reader =
        new FlightSqlPartitionReader(partition, answer, config, false)) {
      while (reader.next()) {
        ColumnarBatch batch = reader.get();
        for (int i = 0; i < batch.numRows(); i++) {
          rows.add(batch.getRow(i).copy());
        }
      }
    }
    return rows;
  }
}
