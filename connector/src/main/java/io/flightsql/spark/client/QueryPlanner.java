package io.flightsql.spark.client;

import com.google.protobuf.Any;
import io.flightsql.spark.client.metadata.ServerFacts;
import io.flightsql.spark.client.transport.CallBudget;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlClientWithOptions;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CancelFlightInfoResult;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.PollInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans one query: PollFlightInfo where the server has it, polling until the FlightInfo is complete
 * and logging the server's progress at INFO about every {@link #PROGRESS_LOG_INTERVAL}; otherwise
 * GetFlightInfo (a server that answers PollFlightInfo with UNIMPLEMENTED is remembered for the JVM,
 * {@link ServerFacts}; a first poll that fails otherwise, but not for want of a connection,
 * credentials or time, is tried once more as GetFlightInfo, for servers that say UNIMPLEMENTED
 * differently). Option {@code queryTimeout} bounds the whole planning; past it, and when the
 * planning is cancelled ({@link PlanningCancellation}, or an interrupt of the thread), the query is
 * cancelled on the server (CancelFlightInfo, or the cancellation of the GetFlightInfo call for a
 * server that does not poll) and planning fails with a {@link FlightSqlConnectorException} saying
 * why; the pauses before retries of failed calls end early then too ({@link CallBudget}). The first
 * PollFlightInfo and a GetFlightInfo may take as long as the query does, and have no deadline but
 * these options; the polls after the first should be answered at once, and have the deadline of
 * metadata calls. Not thread-safe: one per planning.
 */
final class QueryPlanner implements CallBudget {
  private static final Logger LOG = LoggerFactory.getLogger(QueryPlanner.class);

  static final String POLL = "PollFlightInfo";
  static final Duration PROGRESS_LOG_INTERVAL = Duration.ofSeconds(10);
  private static final long FIRST_POLL_PAUSE_MILLIS = 100;
  private static final long MAX_POLL_PAUSE_MILLIS = 1_000;

  /** How often a pause between polls looks at the cancellation. */
  private static final long CANCELLATION_CHECK_MILLIS = 100;

  /** The deadline of a CancelFlightInfo (callTimeout's, if shorter): planning is ending anyway. */
  static final long CANCEL_DEADLINE_MILLIS = 10_000;

  private final FlightSqlClientWithOptions client;
  private final FlightUri server;
  private final ServerFacts facts;
  private final String query;
  private final long timeoutMillis;
  private final PlanningCancellation cancellation;
  private final long startNanos = System.nanoTime();

  /**
   * @param queryTimeout the bound of the whole planning; null or zero for none
   */
  QueryPlanner(
      FlightSqlClientWithOptions client,
      FlightUri server,
      String query,
      Duration queryTimeout,
      PlanningCancellation cancellation) {
    this.client = client;
    this.server = server;
    this.facts = ServerFacts.of(client.settings());
    this.query = query;
    this.timeoutMillis = queryTimeout == null ? 0 : queryTimeout.toMillis();
    this.cancellation = cancellation;
  }

  FlightInfo plan() {
    if (!facts.lacks(POLL)) {
      PollInfo first;
      try {
        first = client.poll(descriptor(), this);
      } catch (FlightRuntimeException e) {
        if (e.status().code() == FlightStatusCode.UNIMPLEMENTED) {
          facts.noteLacking(POLL);
          LOG.info(
              "{} does not implement PollFlightInfo; its queries are planned with GetFlightInfo",
              server);
          return getFlightInfo();
        }
        // Not for failures of the connection, the credentials or the deadline.
        if (FlightErrors.isAboutTheCall(e) || facts.answers(POLL) || stopReason().isPresent()) {
          throw callFailed(POLL, e, null);
        }
        // Some servers answer a call they lack with another status than UNIMPLEMENTED; the query
        // of a server not yet seen to poll gets GetFlightInfo once, which fails the same way if
        // the query itself is at fault.
        LOG.info("PollFlightInfo failed for {} ({}); trying GetFlightInfo", server, e.getMessage());
        try {
          return getFlightInfo();
        } catch (RuntimeException second) {
          second.addSuppressed(FlightErrors.rpcFailed(POLL, server, e));
          throw second;
        }
      } catch (RuntimeException e) {
        throw cutShortByInterrupt(POLL, e, null);
      }
      facts.noteAnswering(POLL);
      return poll(first);
    }
    return getFlightInfo();
  }

  private FlightInfo poll(PollInfo first) {
    PollInfo poll = first;
    long pause = FIRST_POLL_PAUSE_MILLIS;
    long nextLogNanos = startNanos + PROGRESS_LOG_INTERVAL.toNanos();
    while (true) {
      Optional<FlightDescriptor> again = poll.getFlightDescriptor();
      if (!again.isPresent()) {
        if (poll.getFlightInfo() == null) {
          throw FlightErrors.failure(
              POLL,
              server,
              FlightStatusCode.INTERNAL,
              "the server said the query is complete but sent no FlightInfo",
              null,
              null);
        }
        if (System.nanoTime() - startNanos >= PROGRESS_LOG_INTERVAL.toNanos()) {
          LOG.info("Query on {} planned in {} s", server, elapsedSeconds());
        }
        return poll.getFlightInfo();
      }
      FlightInfo sofar = inFlight(poll, again.get());
      if (System.nanoTime() >= nextLogNanos) {
        LOG.info(
            "Query on {} still being planned after {} s{}",
            server,
            elapsedSeconds(),
            poll.getProgress()
                .map(p -> String.format(Locale.ROOT, " (server progress %.0f%%)", p * 100))
                .orElse(""));
        nextLogNanos += PROGRESS_LOG_INTERVAL.toNanos();
      }
      pauseOrStop(pause, sofar);
      pause = Math.min(pause * 2, MAX_POLL_PAUSE_MILLIS);
      try {
        poll = client.pollAgain(again.get(), this);
      } catch (FlightRuntimeException e) {
        // An interrupt or the deadline of queryTimeout that lands during the call ends it on the
        // client only (gRPC keeps the interrupt flag): the query is cancelled on the server as
        // when either lands between polls.
        stopIfCancelledOrLate(sofar);
        throw callFailed(POLL, e, sofar);
      } catch (RuntimeException e) {
        throw cutShortByInterrupt(POLL, e, sofar);
      }
    }
  }

  /**
   * A call that failed otherwise than with a Flight status. Arrow decodes the schema of a
   * FlightInfo through an interruptible channel, so an interrupt that lands while it decodes fails
   * the call with a {@code ClosedByInterruptException} in a plain {@code RuntimeException}: that is
   * planning cancelled, and the query is cancelled on the server as when the interrupt lands
   * anywhere else. Any other failure is returned as it is.
   */
  private RuntimeException cutShortByInterrupt(String rpc, RuntimeException e, FlightInfo sofar) {
    Optional<String> reason = stopReason();
    if (!reason.isPresent()) {
      return e;
    }
    String outcome =
        sofar != null
            ? cancelOnServer(sofar)
            : rpc + " was cut short; the server was not told, having sent no query to cancel";
    return cancelled(reason.get(), outcome, e);
  }

  /**
   * Waits {@code millis} before the next poll, stopping with the query's cancellation on the server
   * when planning is cancelled or passes option {@code queryTimeout}.
   */
  private void pauseOrStop(long millis, FlightInfo sofar) {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (true) {
      stopIfCancelledOrLate(sofar);
      long left = until - System.nanoTime();
      if (left <= 0) {
        return;
      }
      try {
        TimeUnit.NANOSECONDS.sleep(
            Math.min(left, TimeUnit.MILLISECONDS.toNanos(CANCELLATION_CHECK_MILLIS)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void stopIfCancelledOrLate(FlightInfo sofar) {
    Optional<String> reason = stopReason();
    if (reason.isPresent()) {
      throw cancelled(reason.get(), cancelOnServer(sofar), null);
    }
    if (late()) {
      throw timedOut(cancelOnServer(sofar), null);
    }
  }

  private FlightInfo getFlightInfo() {
    FlightInfo info;
    try {
      info = client.execute(query, this);
    } catch (FlightRuntimeException e) {
      throw callFailed("GetFlightInfo", e, null);
    } catch (RuntimeException e) {
      throw cutShortByInterrupt("GetFlightInfo", e, null);
    }
    Optional<String> reason = cancellation.reason();
    if (reason.isPresent()) {
      // Planned, but nobody wants the result: let the server drop it.
      throw cancelled(reason.get(), cancelOnServer(info), null);
    }
    return info;
  }

  /**
   * A failed call during planning. One cut short (cancelled, past its deadline, or failed in a way
   * a retry might have mended) while planning was cancelled or past option {@code queryTimeout} is
   * reported as that, and the query cancelled on the server when there is a FlightInfo to cancel;
   * any other failure is reported as it is.
   */
  private FlightSqlConnectorException callFailed(
      String rpc, FlightRuntimeException e, FlightInfo sofar) {
    FlightStatusCode code = e.status().code();
    boolean cutShort =
        code == FlightStatusCode.CANCELLED
            || code == FlightStatusCode.TIMED_OUT
            || FlightErrors.isRetryable(e);
    Optional<String> reason = cutShort ? stopReason() : Optional.empty();
    if (reason.isPresent() || (cutShort && late())) {
      String outcome;
      if (sofar != null) {
        outcome = cancelOnServer(sofar);
      } else if (code == FlightStatusCode.CANCELLED || code == FlightStatusCode.TIMED_OUT) {
        outcome =
            rpc
                + (reason.isPresent()
                    ? " was cancelled"
                    : " passed its deadline and was cancelled");
      } else {
        outcome = rpc + " failed with " + code + " and was not tried again";
      }
      return reason.isPresent() ? cancelled(reason.get(), outcome, e) : timedOut(outcome, e);
    }
    return FlightErrors.rpcFailed(rpc, server, e);
  }

  /** Why planning must stop now: the thread was interrupted, or the planning cancelled. */
  private Optional<String> stopReason() {
    return Thread.currentThread().isInterrupted()
        ? Optional.of("the planning thread was interrupted")
        : cancellation.reason();
  }

  @Override
  public long millisLeft() {
    return timeoutMillis <= 0 ? Long.MAX_VALUE : timeoutMillis - elapsedMillis();
  }

  @Override
  public boolean stopped() {
    return cancellation.reason().isPresent();
  }

  /**
   * Asks the server to cancel the query, within a short deadline, and says how that went. An
   * interrupt of the thread is set aside for the call (gRPC would refuse to start it) and restored.
   */
  private String cancelOnServer(FlightInfo info) {
    boolean interrupted = Thread.interrupted();
    try {
      CancelFlightInfoResult result = client.cancel(info, CANCEL_DEADLINE_MILLIS);
      LOG.info("CancelFlightInfo of a query on {}: {}", server, result.getStatus());
      return "CancelFlightInfo answered " + result.getStatus();
    } catch (RuntimeException e) {
      LOG.warn("CancelFlightInfo of a query on {} failed: {}", server, e.getMessage());
      return FlightErrors.isUnimplemented(e)
          ? "the server does not implement CancelFlightInfo"
          : "CancelFlightInfo failed: " + e.getMessage();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private FlightSqlConnectorException timedOut(String cancellationOutcome, Throwable cause) {
    return FlightErrors.failure(
        "Planning",
        server,
        FlightStatusCode.TIMED_OUT,
        "the query was not planned within option 'queryTimeout' ("
            + timeoutMillis
            + " ms); "
            + cancellationOutcome,
        "Raise 'queryTimeout', or leave it unset for no limit. Query: " + abbreviated(),
        cause);
  }

  private FlightSqlConnectorException cancelled(
      String reason, String cancellationOutcome, Throwable cause) {
    return FlightErrors.failure(
        "Planning",
        server,
        FlightStatusCode.CANCELLED,
        "planning was cancelled after "
            + elapsedSeconds()
            + " s: "
            + reason
            + "; "
            + cancellationOutcome,
        "Query: " + abbreviated(),
        cause);
  }

  /** What to cancel while polling: the FlightInfo so far, else one naming the poll descriptor. */
  private static FlightInfo inFlight(PollInfo poll, FlightDescriptor again) {
    return poll.getFlightInfo() != null
        ? poll.getFlightInfo()
        : new FlightInfo(new Schema(List.of()), again, List.of(), -1, -1);
  }

  private FlightDescriptor descriptor() {
    return FlightDescriptor.command(
        Any.pack(CommandStatementQuery.newBuilder().setQuery(query).build()).toByteArray());
  }

  /** Whether planning has passed option queryTimeout. */
  private boolean late() {
    return timeoutMillis > 0 && elapsedMillis() >= timeoutMillis;
  }

  private long elapsedMillis() {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  private String elapsedSeconds() {
    return String.format(Locale.ROOT, "%.1f", (System.nanoTime() - startNanos) / 1e9);
  }

  private String abbreviated() {
    return query.length() <= 300 ? query : query.substring(0, 300) + "...";
  }
}
