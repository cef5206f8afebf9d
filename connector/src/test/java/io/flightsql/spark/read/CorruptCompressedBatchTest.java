package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.HandBuiltFlightSqlServer;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.List;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A compressed record batch whose body no codec can decompress, sent by a real Flight server after
 * a good compressed batch: the read fails with the connector's error, naming the server and the
 * codec's complaint and saying what went wrong, and leaves no Arrow memory behind (the good batch,
 * the buffers received and any buffer the codec began to fill).
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class CorruptCompressedBatchTest {
  private static final int ROWS = 1_000;

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static BufferAllocator allocator;
  private static HandBuiltFlightSqlServer server;

  /**
   * Claims ZSTD and writes bytes that are no ZSTD frame, half the size of the buffer, so that Arrow
   * sends them as compressed rather than falling back to the raw buffer.
   */
  private static final class GarbageZstd extends AbstractCompressionCodec {
    @Override
    protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
      long length = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + uncompressed.writerIndex() / 2;
      ArrowBuf garbage = allocator.buffer(length);
      garbage.setOne(0, length);
      garbage.writerIndex(length);
      return garbage;
    }

    @Override
    protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
      throw new UnsupportedOperationException("only ever sends");
    }

    @Override
    public CodecType getCodecType() {
      return CodecType.ZSTD;
    }
  }

  @BeforeAll
  static void start() {
    allocator = new RootAllocator(Long.MAX_VALUE);
    server = HandBuiltFlightSqlServer.start();
    Schema schema = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      BigIntVector id = (BigIntVector) root.getVector(0);
      id.allocateNew(ROWS);
      for (int i = 0; i < ROWS; i++) {
        id.set(i, i);
      }
      root.setRowCount(ROWS);
      server
          .dataset("corrupt_zstd", schema)
          .batch(root, CommonsCompressionFactory.INSTANCE.createCodec(CodecType.ZSTD))
          .batch(root, new GarbageZstd())
          .register();
      server
          .dataset("good_zstd", schema)
          .batch(root, CommonsCompressionFactory.INSTANCE.createCodec(CodecType.ZSTD))
          .register();
    }
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
    if (allocator != null) {
      allocator.close();
    }
  }

  @Test
  void aBatchThatCannotBeDecompressedFailsTheReadNamingTheServer() {
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .read()
                    .format("flightsql")
                    .option("uri", server.uri())
                    .option("query", "corrupt_zstd")
                    .load()
                    .collectAsList())
        .hasMessageContaining("[flightsql] DoGet failed for " + server.uri())
        .hasMessageContaining("UNKNOWN: Error decompressing")
        .hasMessageContaining(
            "A record batch that the server compressed could not be decompressed: its body is"
                + " corrupt, or not in the format of the codec it names (ZSTD or LZ4_FRAME)");
  }

  @Test
  void theSameBatchWellCompressedIsRead() {
    List<Row> rows =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", server.uri())
            .option("query", "good_zstd")
            .load()
            .collectAsList();
    assertThat(rows).hasSize(ROWS);
    assertThat(rows.stream().mapToLong(r -> r.getLong(0)).sum())
        .isEqualTo((long) ROWS * (ROWS - 1) / 2);
  }
}
