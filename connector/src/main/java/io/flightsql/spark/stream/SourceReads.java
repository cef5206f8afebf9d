package io.flightsql.spark.stream;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.sql.PushedQuery;
import io.flightsql.spark.sql.SourceColumns;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;

/**
 * What a stream reads through: the batch read of its source, which the read path hands to the
 * stream it makes. A micro-batch is a batch read of the source with the batch's offset range added
 * to the query's WHERE clause, in the read's dialect, and its partitions and readers are the batch
 * read's: one per endpoint of the server's answer, or the client-side partitions of options {@code
 * partitionColumn} and {@code predicates}. Driver only.
 */
public interface SourceReads {
  /** The columns of the source, which each micro-batch returns. */
  StructType schema();

  FlightSqlReadConfig config();

  /**
   * The source's query in the read's dialect, nothing added yet. Found once, the first time it is
   * asked for (GetSqlInfo, and the source's Arrow schema for {@link #columns()}).
   *
   * @throws IllegalArgumentException when the server's dialect is not known well enough to name a
   *     column in SQL, saying what to set
   */
  PushedQuery source();

  /**
   * The source's columns as SQL over {@link #source()} names them, with which of them the server
   * compares as Spark does.
   */
  SourceColumns columns();

  /**
   * The partitions of {@code query}, which selects the source's columns: planned on the server now
   * (one per endpoint of its answer), or split by the client; their planning is bounded as a batch
   * read's is, by option {@code queryTimeout}.
   */
  InputPartition[] partitions(PushedQuery query);

  /** The readers of {@link #partitions}, on executors. */
  PartitionReaderFactory readerFactory();

  /**
   * Runs {@code query} on the driver and returns every row of its answer, read from each endpoint
   * in turn as a partition is read (planning bounded by {@code queryTimeout}, each wait for a batch
   * by {@code streamIdleTimeout}), never split by the client.
   *
   * @param schema the columns of {@code query}'s answer, as Spark reads them
   */
  List<InternalRow> rowsOnDriver(PushedQuery query, StructType schema);
}
