package io.flightsql.spark.write;

import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.types.SparkToArrow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.spark.SparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * A DataFrame's write, {@code df.write.format("flightsql").mode(...).save()}, carried out as one
 * job: the plan ({@link WritePlanner}: the save mode checked, the table change decided), the table
 * change where tasks write into the table directly ({@link JobStart}), one Spark job whose tasks
 * stream the DataFrame's rows ({@link WriteTask}), then the commit or, after any failure, the abort
 * ({@link JobCommitter}, shared with catalog writes). The save mode, the plan and the commit belong
 * to this one write: nothing goes back through the data source. Driver only.
 *
 * <p>Spark hands a {@code CreatableRelationProvider} the whole DataFrame and the save mode, the
 * only entry that gets every mode for a source without a catalog; the job runs the DataFrame's
 * internal rows ({@code queryExecution().toRdd()}, on Spark 3.5 and 4 alike) through {@code
 * SparkContext.runJob}, whose result handler sees one successful attempt per partition.
 */
public final class DataFrameWrite {
  /** Spark's setting for how names match, which writes follow as Spark's JDBC source does. */
  private static final String CASE_SENSITIVE = "spark.sql.caseSensitive";

  private DataFrameWrite() {}

  /** Writes {@code data} as {@code mode} says. */
  public static void save(FlightSqlWriteConfig config, SaveMode mode, Dataset<Row> data) {
    StructType schema = data.schema();
    // Fails naming the column, before anything reaches the server, for a type Arrow cannot carry.
    SparkToArrow.toArrowSchema(schema);
    boolean caseSensitive =
        Boolean.parseBoolean(data.sparkSession().conf().get(CASE_SENSITIVE, "false"));
    WritePlanner planner = new WritePlanner(config, schema, caseSensitive);
    Optional<WritePlan> plan = planner.plan(mode);
    if (plan.isPresent()) {
      run(plan.get(), planner.columns().map(match -> match.apply(data)).orElse(data));
    }
  }

  private static void run(WritePlan plan, Dataset<Row> rows) {
    RDD<InternalRow> rdd = rows.queryExecution().toRdd();
    SparkContext spark = rdd.sparkContext();
    FlightSqlCommitMessage[] messages = new FlightSqlCommitMessage[rdd.getNumPartitions()];
    JobCommitter job = new JobCommitter(plan);
    // After the job's partitions are made, so that a job reading the table it would empty is
    // refused before anything changes.
    JobStart.changeTable(plan);
    ClassTag<FlightSqlCommitMessage> tag = ClassTag$.MODULE$.apply(FlightSqlCommitMessage.class);
    try {
      spark.runJob(
          rdd, new WriteTask(plan, WriteMetrics.register(spark)), new Collect(messages), tag);
    } catch (Throwable failure) {
      try {
        job.abort(committed(messages));
      } catch (RuntimeException abortFailed) {
        failure.addSuppressed(abortFailed);
      }
      throw failure;
    }
    job.commit(Arrays.asList(messages));
  }

  private static List<FlightSqlCommitMessage> committed(FlightSqlCommitMessage[] messages) {
    List<FlightSqlCommitMessage> out = new ArrayList<>();
    for (FlightSqlCommitMessage message : messages) {
      if (message != null) {
        out.add(message);
      }
    }
    return out;
  }

  /** Keeps each partition's message, on the driver, as Spark hands over each successful task. */
  private static final class Collect
      extends AbstractFunction2<Object, FlightSqlCommitMessage, BoxedUnit> {
    private final FlightSqlCommitMessage[] messages;

    Collect(FlightSqlCommitMessage[] messages) {
      this.messages = messages;
    }

    @Override
    public BoxedUnit apply(Object partition, FlightSqlCommitMessage message) {
      messages[(Integer) partition] = message;
      return BoxedUnit.UNIT;
    }
  }
}
