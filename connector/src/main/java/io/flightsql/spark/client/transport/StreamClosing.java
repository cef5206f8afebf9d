package io.flightsql.spark.client.transport;

import org.apache.arrow.flight.FlightStream;

/**
 * Closes a DoGet stream so that its Arrow buffers are released even on a thread that is interrupted
 * while it closes. {@code FlightStream.close()} cancels the call and then drains the messages
 * already received; an interrupt during that drain (Spark kills a task by interrupting its thread,
 * and the kill can land after the task's reader began to close) fails the drain before the stream
 * releases its batches, and they would stay allocated for the life of the JVM. The interrupt is set
 * aside, the close done again, and the interrupt restored.
 */
public final class StreamClosing {
  /** Closes after an interrupt; more interrupts than this mean someone keeps interrupting. */
  private static final int ATTEMPTS = 5;

  private StreamClosing() {}

  /**
   * Closes {@code stream}, whatever interrupts arrive meanwhile.
   *
   * @throws Exception what the close threw for any other reason, or its last interrupted failure
   *     after {@value #ATTEMPTS} attempts
   */
  public static void close(FlightStream stream) throws Exception {
    boolean interrupted = false;
    try {
      for (int attempt = 1; ; attempt++) {
        try {
          stream.close();
          return;
        } catch (Exception e) {
          if (!isInterruption(e) || attempt == ATTEMPTS) {
            throw e;
          }
          interrupted = true;
          Thread.interrupted();
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * {@link #close(FlightStream)} for clean-up after another failure: what the close throws is added
   * to {@code failure} as suppressed.
   */
  public static void closeAfter(Throwable failure, FlightStream stream) {
    try {
      close(stream);
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }

  /** Whether the close failed because the thread was interrupted (Flight wraps the exception). */
  private static boolean isInterruption(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException) {
        return true;
      }
    }
    return false;
  }
}
