package io.flightsql.spark.config;

import io.flightsql.spark.client.upload.UploadCompression;
import io.flightsql.spark.config.FlightSqlWriteConfig.Atomic;
import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;

/** The options of scope {@link OptionScope#WRITE}: how rows reach the server, and in what. */
public final class WriteOptions {
  private WriteOptions() {}

  private static final OptionScope SCOPE = OptionScope.WRITE;

  public static final OptionSpec<WriteMethod> WRITE_METHOD =
      OptionTypes.choice("writeMethod", SCOPE, WriteMethod.values())
          .defaultValue(WriteMethod.AUTO)
          .description(
              "How rows reach the server. `ingest` streams Arrow batches through Flight SQL bulk"
                  + " ingestion (`CommandStatementIngest`); `prepared` binds them as the parameters"
                  + " of a prepared `INSERT ... VALUES (?, ...)`; `auto` uses ingestion where"
                  + " GetSqlInfo says the server has it, and a prepared INSERT otherwise. See"
                  + " docs/writing.md.");

  public static final OptionSpec<Integer> BATCH_SIZE =
      OptionTypes.positiveInt("batchSize", "a positive number of rows", SCOPE)
          .defaultValue(65536)
          .description(
              "The most rows in one Arrow batch sent by a write task. A batch also ends at"
                  + " `batchBytes`.");

  public static final OptionSpec<Long> BATCH_BYTES =
      OptionTypes.positiveLong("batchBytes", "a positive number of bytes", SCOPE)
          .defaultValue(3L * 1024 * 1024)
          .description(
              "The most bytes (Arrow buffer sizes, estimated as rows are added) in one Arrow"
                  + " batch sent by a write task. A task holds about two batches in memory,"
                  + " whatever its size. Each batch is one gRPC message, a little larger than"
                  + " its buffers: gRPC servers refuse messages over 4 MiB unless configured"
                  + " otherwise (gRPC-Go's and grpc-java's default), so keep it well under"
                  + " that for them.");

  public static final OptionSpec<UploadCompression> COMPRESSION =
      OptionTypes.choice("compression", SCOPE, UploadCompression.values())
          .defaultValue(UploadCompression.NONE)
          .description(
              "How a write task's Arrow batches travel to the server: `none` as they are; `zstd`"
                  + " (level 3) or `lz4` (LZ4 frames) with their buffers compressed, as the Arrow"
                  + " IPC format allows, which the server must be able to read. Fewer bytes on the"
                  + " network for more CPU on both sides: worth it on a slow link. They compress"
                  + " with the zstd-jni and lz4-java that Spark ships. See docs/writing.md.");

  public static final OptionSpec<Boolean> TRUNCATE =
      OptionTypes.bool("truncate", SCOPE)
          .defaultValue(false)
          .description(
              "With save mode `overwrite`: `true` keeps the table's definition and deletes its"
                  + " rows; `false` drops the table and creates it again from the DataFrame's"
                  + " schema.");

  public static final OptionSpec<Atomic> ATOMIC =
      OptionTypes.choice("atomic", SCOPE, Atomic.values())
          .defaultValue(Atomic.AUTO)
          .description(
              "Whether a failed job may change the table. `auto` writes each task's rows to a"
                  + " staging table of its own and moves those of the tasks Spark committed into"
                  + " the table at the job's commit, in one transaction where the server has"
                  + " transactions (a failed or retried task, or a failed job, then changes"
                  + " nothing) and by statements that rename or copy the staged rows where it"
                  + " has none (a failed task or job changes nothing; a failure during the"
                  + " commit itself may, and the first such write to a server says so in the"
                  + " driver's log). `true` refuses a server without transactions. `false`"
                  + " writes into the table directly, each task in its own transaction where"
                  + " the server has them; an overwrite then empties or replaces the table"
                  + " before the tasks run. See docs/writing.md.");
}
