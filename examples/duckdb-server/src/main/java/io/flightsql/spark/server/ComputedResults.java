package io.flightsql.spark.server;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Query results computed once, in GetFlightInfo, whose endpoints are cheap slices: the mode of a
 * server started without {@code QueryPerEndpoint}. The result's batches stay in this server's
 * memory, split into one run of whole batches per endpoint, until that endpoint is read; the
 * endpoint's ticket names the result and the endpoint, and can be read once. A result is dropped
 * when every endpoint was read, when it is older than {@link #LIFETIME}, or when {@link
 * #MAX_RESULTS} newer ones are held; a ticket of a dropped result answers NOT_FOUND.
 *
 * <p>Results with dictionary-encoded columns (DuckDB's ENUM) are not kept: their dictionaries
 * belong to DuckDB's stream, so such queries run once per endpoint as usual.
 *
 * <p>Thread-safe.
 */
final class ComputedResults implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ComputedResults.class);

  private static final int MAGIC = 0x44_44_42_52; // "DDBR"
  private static final int HANDLE_BYTES = 4 + 8 + 4;
  private static final Duration LIFETIME = Duration.ofMinutes(10);
  private static final int MAX_RESULTS = 8;

  /** A result's endpoints: each one's batches, null once taken. */
  private static final class Result {
    final Schema schema;
    final List<List<ArrowRecordBatch>> endpoints;
    final long createdNanos = System.nanoTime();
    int left;

    Result(Schema schema, List<List<ArrowRecordBatch>> endpoints) {
      this.schema = schema;
      this.endpoints = endpoints;
      this.left = endpoints.size();
    }

    void close() {
      for (int i = 0; i < endpoints.size(); i++) {
        List<ArrowRecordBatch> batches = endpoints.set(i, null);
        if (batches != null) {
          closeAll(batches);
        }
      }
    }
  }

  /**
   * A computed result as GetFlightInfo describes it.
   *
   * @param handles one statement handle per endpoint, in order
   */
  record Computed(Schema schema, long rows, List<ByteString> handles) {}

  /** The batches of one endpoint, which the caller now owns and must close. */
  record Slice(Schema schema, List<ArrowRecordBatch> batches) {}

  private final BufferAllocator allocator;
  private final SecureRandom random = new SecureRandom();
  private final Map<Long, Result> results = new LinkedHashMap<>();

  /**
   * @param allocator holds the results; owned from now on, and closed by {@link #close()}
   */
  ComputedResults(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  /** Whether a statement handle names a slice of a computed result. */
  static boolean isHandle(ByteString handle) {
    return handle.size() == HANDLE_BYTES && handle.asReadOnlyByteBuffer().getInt() == MAGIC;
  }

  /**
   * Runs {@code sql} on the connection and keeps its result for {@code endpoints} endpoints; null
   * when the result has dictionary-encoded columns (the caller then plans the query as usual).
   */
  Computed compute(DuckDBConnection connection, String sql, int endpoints, int batchRows)
      throws SQLException {
    List<ArrowRecordBatch> batches = new ArrayList<>();
    Schema schema;
    long rows = 0;
    try (PreparedStatement statement = connection.prepareStatement(QuerySql.subquery(sql));
        ResultSet resultSet = statement.executeQuery();
        ArrowReader reader = DuckDbDatabase.arrowReader(resultSet, allocator, batchRows)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      schema = root.getSchema();
      if (dictionaryEncoded(schema)) {
        return null;
      }
      while (reader.loadNextBatch()) {
        batches.add(new VectorUnloader(root).getRecordBatch());
        rows += root.getRowCount();
      }
    } catch (IOException | SQLException | RuntimeException e) {
      closeAll(batches);
      if (e instanceof SQLException sqlException) {
        throw sqlException;
      }
      throw new SQLException("Could not read DuckDB's result: " + e.getMessage(), e);
    }
    List<List<ArrowRecordBatch>> split = new ArrayList<>(endpoints);
    int from = 0;
    for (int i = 0; i < endpoints; i++) {
      int count = batches.size() / endpoints + (i < batches.size() % endpoints ? 1 : 0);
      split.add(new ArrayList<>(batches.subList(from, from + count)));
      from += count;
    }
    long id = random.nextLong();
    List<ByteString> handles = new ArrayList<>(endpoints);
    for (int i = 0; i < endpoints; i++) {
      ByteBuffer handle = ByteBuffer.allocate(HANDLE_BYTES);
      handle.putInt(MAGIC).putLong(id).putInt(i).flip();
      handles.add(ByteString.copyFrom(handle));
    }
    List<Result> dropped = new ArrayList<>();
    synchronized (results) {
      results.put(id, new Result(schema, split));
      long now = System.nanoTime();
      Iterator<Result> oldest = results.values().iterator();
      while (oldest.hasNext()) {
        Result result = oldest.next();
        if (results.size() - dropped.size() > MAX_RESULTS
            || now - result.createdNanos > LIFETIME.toNanos()) {
          oldest.remove();
          dropped.add(result);
        }
      }
    }
    dropped.forEach(Result::close);
    LOG.info(
        "Computed {} rows in {} batches ({} bytes) for {} endpoints{}",
        rows,
        batches.size(),
        batches.stream().mapToLong(ArrowRecordBatch::computeBodyLength).sum(),
        endpoints,
        dropped.isEmpty() ? "" : "; dropped " + dropped.size() + " older result(s)");
    return new Computed(schema, rows, handles);
  }

  /**
   * Takes the batches of the endpoint that {@code handle} names; null when its result was dropped
   * or the endpoint was read already.
   */
  Slice take(ByteString handle) {
    ByteBuffer bytes = handle.asReadOnlyByteBuffer();
    bytes.getInt();
    long id = bytes.getLong();
    int endpoint = bytes.getInt();
    synchronized (results) {
      Result result = results.get(id);
      if (result == null || endpoint < 0 || endpoint >= result.endpoints.size()) {
        return null;
      }
      List<ArrowRecordBatch> batches = result.endpoints.set(endpoint, null);
      if (batches == null) {
        return null;
      }
      if (--result.left == 0) {
        results.remove(id);
      }
      return new Slice(result.schema, batches);
    }
  }

  /** Drops every result and closes the allocator. */
  @Override
  public void close() {
    List<Result> all;
    synchronized (results) {
      all = new ArrayList<>(results.values());
      results.clear();
    }
    all.forEach(Result::close);
    allocator.close();
  }

  static void closeAll(List<ArrowRecordBatch> batches) {
    try {
      AutoCloseables.close(batches);
    } catch (Exception e) {
      throw new IllegalStateException("Could not free a computed result", e);
    }
  }

  private static boolean dictionaryEncoded(Schema schema) {
    return schema.getFields().stream().anyMatch(ComputedResults::dictionaryEncoded);
  }

  private static boolean dictionaryEncoded(Field field) {
    return field.getDictionary() != null
        || field.getChildren().stream().anyMatch(ComputedResults::dictionaryEncoded);
  }
}
