package io.flightsql.spark.server;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.PollInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PollFlightInfo and CancelFlightInfo of statement queries: a polled query is planned in the
 * background (after the planning delay of {@link LongQuerySettings}, through which it reports its
 * progress), and each PollInfo until it is done carries a descriptor to poll again, of the form
 * {@code PATH ["duckdb-poll", <id>]}, and an expiration time; the query is dropped when nobody
 * polls it for {@link #POLL_EXPIRY}. CancelFlightInfo (and Flight SQL's older CancelQuery action,
 * which Arrow turns into it) stops a query still being planned. Other commands answer
 * PollFlightInfo at once with their complete FlightInfo.
 *
 * <p>Thread-safe. The background threads are daemons, stopped by {@link #close()}.
 */
final class PollCommands implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PollCommands.class);

  /** How long a query being planned is kept without being polled. */
  static final Duration POLL_EXPIRY = Duration.ofSeconds(60);

  private static final String PATH_HEAD = "duckdb-poll";

  private static final AtomicInteger THREAD_IDS = new AtomicInteger();

  private final QueryCommands queries;
  private final LongQuerySettings settings;
  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final AtomicInteger cancelled = new AtomicInteger();
  private final ExecutorService planners =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "duckdb-planning-" + THREAD_IDS.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  /** A query being planned in the background. */
  private static final class Running {
    final FlightDescriptor pollDescriptor;
    final Future<FlightInfo> plan;
    final long startNanos = System.nanoTime();
    volatile long lastPolledNanos = startNanos;

    Running(FlightDescriptor pollDescriptor, Future<FlightInfo> plan) {
      this.pollDescriptor = pollDescriptor;
      this.plan = plan;
    }
  }

  PollCommands(QueryCommands queries, LongQuerySettings settings) {
    this.queries = queries;
    this.settings = settings;
  }

  /**
   * PollFlightInfo.
   *
   * @param plainInfo the FlightInfo of a command that is not a statement query, for GetFlightInfo's
   *     answer
   */
  PollInfo poll(
      CallContext context,
      FlightDescriptor descriptor,
      Function<FlightDescriptor, FlightInfo> plainInfo) {
    if (!settings.poll()) {
      throw CallRunner.unsupported("PollFlightInfo");
    }
    dropAbandoned();
    String id = pollId(descriptor);
    if (id != null) {
      return pollAgain(id);
    }
    CommandStatementQuery query = statementQuery(descriptor);
    if (query == null) {
      return new PollInfo(plainInfo.apply(descriptor), null, 1.0, null);
    }
    return start(query, QueryCommands.Origin.of(context), descriptor);
  }

  private PollInfo start(
      CommandStatementQuery query, QueryCommands.Origin origin, FlightDescriptor descriptor) {
    String id = UUID.randomUUID().toString();
    long delayMillis = settings.planningDelay().toMillis();
    Future<FlightInfo> plan =
        planners.submit(
            () -> {
              Thread.sleep(delayMillis);
              return queries.plan(query, origin, descriptor);
            });
    Running job = new Running(FlightDescriptor.path(PATH_HEAD, id), plan);
    running.put(id, job);
    LOG.info("PollFlightInfo from {}: planning query {} in the background", origin.peer(), id);
    if (delayMillis == 0) {
      // Without a planning delay the query is answered complete in this first call, as Arrow Java
      // servers answer PollFlightInfo by default: a fast query costs one call, not two.
      awaitQuietly(plan);
      return pollAgain(id);
    }
    return pending(job);
  }

  /** Waits for a plan to end; how it ended is reported by {@link #pollAgain}. */
  private static void awaitQuietly(Future<FlightInfo> plan) {
    try {
      plan.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | CancellationException e) {
      // pollAgain reports it.
    }
  }

  private PollInfo pollAgain(String id) {
    Running job = running.get(id);
    if (job == null) {
      throw CallStatus.NOT_FOUND
          .withDescription(
              "No query "
                  + id
                  + " is being planned: it finished and was already returned, was cancelled, or"
                  + " was not polled for "
                  + POLL_EXPIRY.toSeconds()
                  + " s")
          .toRuntimeException();
    }
    job.lastPolledNanos = System.nanoTime();
    if (!job.plan.isDone()) {
      return pending(job);
    }
    running.remove(id);
    try {
      return new PollInfo(job.plan.get(), null, 1.0, null);
    } catch (CancellationException e) {
      throw CallStatus.CANCELLED.withDescription("The query was cancelled").toRuntimeException();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallStatus.CANCELLED.withDescription("Interrupted").toRuntimeException();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof FlightRuntimeException) {
        throw (FlightRuntimeException) cause;
      }
      throw CallRunner.queryFailed(
          cause instanceof Exception ? (Exception) cause : new IllegalStateException(cause));
    }
  }

  /** A PollInfo of a query still being planned: no endpoint yet, progress by the delay's share. */
  private PollInfo pending(Running job) {
    long delayNanos = settings.planningDelay().toNanos();
    double elapsed = System.nanoTime() - job.startNanos;
    double progress = delayNanos == 0 ? 0.99 : Math.min(0.99, elapsed / delayNanos);
    FlightInfo sofar = new FlightInfo(new Schema(List.of()), job.pollDescriptor, List.of(), -1, -1);
    return new PollInfo(sofar, job.pollDescriptor, progress, Instant.now().plus(POLL_EXPIRY));
  }

  /** CancelFlightInfo: stops a query that is still being planned. */
  CancelStatus cancel(CancelFlightInfoRequest request) {
    String id = pollId(request.getInfo().getDescriptor());
    Running job = id == null ? null : running.remove(id);
    if (job == null) {
      LOG.info("CancelFlightInfo of a query that is not being planned: nothing to cancel");
      return CancelStatus.NOT_CANCELLABLE;
    }
    job.plan.cancel(true);
    cancelled.incrementAndGet();
    LOG.info("CancelFlightInfo: query {} cancelled while being planned", id);
    return CancelStatus.CANCELLED;
  }

  /** How many queries CancelFlightInfo stopped while they were being planned. */
  int cancelledQueries() {
    return cancelled.get();
  }

  private void dropAbandoned() {
    long now = System.nanoTime();
    running
        .entrySet()
        .removeIf(
            entry -> {
              boolean abandoned = now - entry.getValue().lastPolledNanos > POLL_EXPIRY.toNanos();
              if (abandoned) {
                entry.getValue().plan.cancel(true);
                LOG.info("Query {} dropped: not polled for {}", entry.getKey(), POLL_EXPIRY);
              }
              return abandoned;
            });
  }

  /** The id in a descriptor to poll again, or null for any other descriptor. */
  private static String pollId(FlightDescriptor descriptor) {
    if (descriptor == null || descriptor.isCommand()) {
      return null;
    }
    List<String> path = descriptor.getPath();
    return path.size() == 2 && path.get(0).equals(PATH_HEAD) ? path.get(1) : null;
  }

  /** The statement query a command descriptor holds, or null for any other command. */
  private static CommandStatementQuery statementQuery(FlightDescriptor descriptor) {
    if (!descriptor.isCommand()) {
      return null;
    }
    try {
      Any command = Any.parseFrom(descriptor.getCommand());
      return command.is(CommandStatementQuery.class)
          ? command.unpack(CommandStatementQuery.class)
          : null;
    } catch (InvalidProtocolBufferException e) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "Not a Flight SQL command: "
                  + descriptor.getCommand().length
                  + " bytes that are not a protobuf Any")
          .toRuntimeException();
    }
  }

  /** Stops every query still being planned. */
  @Override
  public void close() {
    planners.shutdownNow();
    running.clear();
  }
}
