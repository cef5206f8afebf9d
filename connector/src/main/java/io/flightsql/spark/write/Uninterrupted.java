package io.flightsql.spark.write;

/**
 * Runs clean-up calls on a thread that may have been interrupted, without letting the interrupt
 * refuse them. Spark 4 interrupts a job's running tasks when the job fails or is cancelled ({@code
 * spark.sql.execution.interruptOnCancel}), and gRPC's blocking calls fail at once on an interrupted
 * thread ("CANCELLED: Thread interrupted"), so a task's rollback would never reach the server and
 * its transaction would stay open, holding its locks: on SQLite every other writer then waits. The
 * calls are bounded by the client's deadlines instead; the interrupt is restored afterwards.
 */
final class Uninterrupted {
  private Uninterrupted() {}

  static void run(Runnable cleanUp) {
    boolean interrupted = Thread.interrupted();
    try {
      cleanUp.run();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
