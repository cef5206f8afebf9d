package io.flightsql.spark.read;

import io.flightsql.spark.client.PlanningCancellation;
import java.util.Optional;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether Spark gave up on a query being planned. On an executor (a client-side partition's query):
 * the task was killed. On the driver: the job group of the planning thread was cancelled together
 * with its future jobs ({@code SparkContext.cancelJobGroupAndFutureJobs}), which Spark remembers in
 * its scheduler. A plain {@code cancelJobGroup} only cancels jobs already running, and none runs
 * while a scan is planned; Spark records nothing of it, so planning learns of it only when the
 * canceller also interrupts the planning thread (as the Thrift server and Spark Connect do), which
 * the planner watches itself. Made on the thread that plans; not Serializable.
 */
final class SparkPlanningCancellation implements PlanningCancellation {
  private static final Logger LOG = LoggerFactory.getLogger(SparkPlanningCancellation.class);

  private static final String JOB_GROUP = "spark.jobGroup.id";

  private final TaskContext task;
  private final SparkContext driver;
  private final String jobGroup;
  // Per JVM: the scheduler of a Spark without the record (3.5) is unreadable for good; warn once.
  private static volatile boolean schedulerUnreadable;

  private SparkPlanningCancellation(TaskContext task, SparkContext driver, String jobGroup) {
    this.task = task;
    this.driver = driver;
    this.jobGroup = jobGroup;
  }

  /** The cancellation of the calling thread's task, or of its job group on the driver. */
  static PlanningCancellation current() {
    TaskContext task = TaskContext.get();
    if (task != null) {
      return new SparkPlanningCancellation(task, null, null);
    }
    scala.Option<SparkSession> active = SparkSession.getActiveSession();
    if (active.isEmpty()) {
      active = SparkSession.getDefaultSession();
    }
    if (active.isEmpty()) {
      return PlanningCancellation.NONE;
    }
    SparkContext context = active.get().sparkContext();
    String group = context.getLocalProperty(JOB_GROUP);
    return group == null
        ? PlanningCancellation.NONE
        : new SparkPlanningCancellation(null, context, group);
  }

  @Override
  public Optional<String> reason() {
    if (task != null) {
      return task.isInterrupted()
          ? Optional.of(
              "the Spark task was killed ("
                  + task.getKillReason().getOrElse(() -> "no reason given")
                  + ")")
          : Optional.empty();
    }
    return jobGroupCancelled()
        ? Optional.of("the Spark job group '" + jobGroup + "' was cancelled")
        : Optional.empty();
  }

  /**
   * Whether the scheduler records the job group as cancelled for its future jobs. The record is
   * Spark's own, not a public API: if a Spark version changes it, the check is dropped with a
   * warning, and interrupts still cancel planning.
   */
  private boolean jobGroupCancelled() {
    if (schedulerUnreadable) {
      return false;
    }
    try {
      // Spark 4.0 added the record; Spark 3.5 has none, so it is looked up by name.
      Object cancelled =
          driver
              .dagScheduler()
              .getClass()
              .getMethod("cancelledJobGroups")
              .invoke(driver.dagScheduler());
      return (Boolean)
          cancelled.getClass().getMethod("contains", Object.class).invoke(cancelled, jobGroup);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      schedulerUnreadable = true;
      LOG.warn(
          "Cannot read Spark's cancelled job groups ({}); a cancelled job group stops the planning"
              + " of a query only if the planning thread is interrupted",
          e.toString());
      return false;
    }
  }
}
