package io.flightsql.spark.client.metadata;

import io.flightsql.spark.client.transport.FlightUri;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The optional calls each server answered UNIMPLEMENTED, remembered for the life of the JVM, so
 * that asking a server for a call it does not have costs one call per JVM, not one per query or
 * partition: PollFlightInfo (planning then uses GetFlightInfo) and RenewFlightEndpoint. Also the
 * calls a server was seen to answer, so that a later failure of one is taken for what it says (a
 * query the server refuses) and not for a call the server may lack. Thread-safe.
 */
public final class UnimplementedCalls {
  private static final Map<FlightUri, Set<String>> KNOWN = new ConcurrentHashMap<>();
  private static final Map<FlightUri, Set<String>> ANSWERED = new ConcurrentHashMap<>();

  private UnimplementedCalls() {}

  /** Whether {@code server} answered {@code rpc} with UNIMPLEMENTED before, in this JVM. */
  public static boolean known(FlightUri server, String rpc) {
    Set<String> calls = KNOWN.get(server);
    return calls != null && calls.contains(rpc);
  }

  /** Remembers that {@code server} does not implement {@code rpc}. */
  public static void remember(FlightUri server, String rpc) {
    KNOWN.computeIfAbsent(server, s -> ConcurrentHashMap.newKeySet()).add(rpc);
  }

  /** Whether {@code server} answered {@code rpc} before, in this JVM. */
  public static boolean answered(FlightUri server, String rpc) {
    Set<String> calls = ANSWERED.get(server);
    return calls != null && calls.contains(rpc);
  }

  /** Remembers that {@code server} implements {@code rpc}. */
  public static void rememberAnswered(FlightUri server, String rpc) {
    ANSWERED.computeIfAbsent(server, s -> ConcurrentHashMap.newKeySet()).add(rpc);
  }
}
