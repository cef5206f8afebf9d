package io.flightsql.spark.read;

import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.stream.FlightSqlStreamingWriteBuilder;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A query's result or a server table as a Spark table that can be read in batch or as a stream, and
 * written as a stream's sink when the data source made it with its options. Batch writes do not
 * come here: the data source carries them out itself (see {@code write.DataFrameWrite}). Driver
 * only; not Serializable.
 */
public final class FlightSqlTable
    implements SupportsRead, SupportsWrite, RuntimeFilterSources.Source {
  private static final Set<TableCapability> CAPABILITIES =
      Collections.unmodifiableSet(
          EnumSet.of(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ));

  private static final Set<TableCapability> WITH_STREAMING_WRITE =
      Collections.unmodifiableSet(
          EnumSet.of(
              TableCapability.BATCH_READ,
              TableCapability.MICRO_BATCH_READ,
              TableCapability.STREAMING_WRITE));

  private final StructType schema;
  private final FlightSqlReadConfig config;
  private final Set<String> comparableColumns;
  // The dialect found for the first query over this table, for the next ones: a DataFrame's
  // table plans each query, and asking the server (GetSqlInfo) each time costs a round trip.
  private final AtomicReference<ResolvedDialect> dialect = new AtomicReference<>();

  /** The options of a streaming write to this table, every source merged; null for none. */
  private final Map<String, String> sinkOptions;

  /** Whether {@link #schema} is one the user gave, matched by name when first needed. */
  private final boolean givenSchema;

  /** What matching the given schema found; null until then, or for a schema not given. */
  private UserSchema.Match match;

  /**
   * @param comparableColumns the columns whose values the server compares as Spark does (see
   *     ComparableColumns), or null when the table was not built from the server's Arrow schema
   */
  public FlightSqlTable(
      StructType schema, FlightSqlReadConfig config, Set<String> comparableColumns) {
    this(schema, config, comparableColumns, null);
  }

  /**
   * @param knownDialect the server's dialect, as it was established, when the caller already knows
   *     it (a catalog resolves it once), or null to ask the server at the first scan
   */
  public FlightSqlTable(
      StructType schema,
      FlightSqlReadConfig config,
      Set<String> comparableColumns,
      ResolvedDialect knownDialect) {
    this(schema, config, comparableColumns, knownDialect, null);
  }

  /**
   * @param sinkOptions the options the table was made with, every source merged, with which a
   *     streaming query may write to it; null for a table that takes no streaming writes
   */
  public FlightSqlTable(
      StructType schema,
      FlightSqlReadConfig config,
      Set<String> comparableColumns,
      ResolvedDialect knownDialect,
      Map<String, String> sinkOptions) {
    this(schema, config, comparableColumns, knownDialect, sinkOptions, false);
  }

  private FlightSqlTable(
      StructType schema,
      FlightSqlReadConfig config,
      Set<String> comparableColumns,
      ResolvedDialect knownDialect,
      Map<String, String> sinkOptions,
      boolean givenSchema) {
    this.givenSchema = givenSchema;
    this.schema = schema;
    this.config = config;
    this.comparableColumns = comparableColumns;
    this.dialect.set(knownDialect);
    this.sinkOptions = sinkOptions;
  }

  /**
   * A table of the data source whose schema the user gave ({@code spark.read.schema(...)}) or a
   * write handed over: matched by name against the server's columns when a read builds its scan,
   * while Spark optimizes it, and never for a write ({@link UserSchema}).
   *
   * @param sinkOptions as for the other constructors
   */
  public static FlightSqlTable withGivenSchema(
      StructType schema, FlightSqlReadConfig config, Map<String, String> sinkOptions) {
    return new FlightSqlTable(schema, config, null, null, sinkOptions, true);
  }

  /** The match of the given schema, made once; null for a schema the server gave. */
  private synchronized UserSchema.Match match() {
    if (givenSchema && match == null) {
      match = UserSchema.check(config, schema);
    }
    return match;
  }

  @Override
  public String name() {
    return "flightsql:" + config.displayName();
  }

  /** What a streaming query's progress names its sink by. */
  @Override
  public String toString() {
    return name();
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType schema() {
    // Not matched here: Spark 4.2+ asks a streaming sink's table for its columns too, before the
    // sink has made the table; a read's scan builder matches it (newScanBuilder).
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return sinkOptions == null ? CAPABILITIES : WITH_STREAMING_WRITE;
  }

  /**
   * A builder of this read's scan; with {@code keepFiltersInSpark=true} among the scan's options
   * (as {@link RuntimeFilterSources} sets it on a join's filtered side), one whose pushed filters
   * stay in Spark's plan too.
   */
  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    UserSchema.Match given = match();
    FlightSqlScanBuilder builder;
    if (given == null) {
      builder = ScanBuilders.create(schema, config, comparableColumns, dialect);
    } else {
      builder = ScanBuilders.create(schema, config, given.comparable, dialect);
      if (!given.sourceOrder) {
        builder.selectByName();
      }
    }
    return RuntimeFilterSources.keepsFilters(options) ? builder.keepingFiltersInSpark() : builder;
  }

  /**
   * The write of a streaming query ({@code df.writeStream.format("flightsql")}); Spark asks only
   * when {@link #capabilities()} has {@link TableCapability#STREAMING_WRITE}.
   */
  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    if (sinkOptions == null) {
      throw new UnsupportedOperationException(
          name() + " takes no streaming writes: it was not made by the flightsql data source");
    }
    return new FlightSqlStreamingWriteBuilder(sinkOptions, info);
  }
}
