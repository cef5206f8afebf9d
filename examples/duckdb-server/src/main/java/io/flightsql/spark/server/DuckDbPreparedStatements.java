package io.flightsql.spark.server;

import com.google.protobuf.ByteString;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The prepared statements that clients have created and not closed yet, by handle.
 *
 * <p>A handle is 16 random bytes that index this map, never the SQL itself: a client can only run
 * statements that it prepared (and whose SQL DuckDB accepted), and guessing another client's handle
 * is hopeless. Closing a statement, or the server, frees its bound parameters.
 */
final class DuckDbPreparedStatements implements AutoCloseable {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<ByteString, Prepared> open = new ConcurrentHashMap<>();

  /** Registers a statement and returns it with its new handle. */
  Prepared add(
      String sql,
      ByteString transactionId,
      int parameterCount,
      Schema parameterSchema,
      String insertPrefix) {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    Prepared prepared =
        new Prepared(
            ByteString.copyFrom(bytes),
            sql,
            transactionId,
            parameterCount,
            parameterSchema,
            insertPrefix);
    open.put(prepared.handle(), prepared);
    return prepared;
  }

  /**
   * @throws FlightRuntimeException NOT_FOUND for a handle that names no open statement
   */
  Prepared get(ByteString handle) {
    Prepared prepared = open.get(handle);
    if (prepared == null) {
      throw notFound();
    }
    return prepared;
  }

  /**
   * Forgets a statement and frees its parameters.
   *
   * @throws FlightRuntimeException NOT_FOUND for a handle that names no open statement
   */
  void remove(ByteString handle) {
    Prepared prepared = open.remove(handle);
    if (prepared == null) {
      throw notFound();
    }
    prepared.bind(null);
  }

  /** How many statements are open. */
  int openCount() {
    return open.size();
  }

  /** Frees every statement's parameters; runs once no call is running any more. */
  @Override
  public void close() {
    List<Prepared> all = new ArrayList<>(open.values());
    open.clear();
    for (Prepared prepared : all) {
      prepared.bind(null);
    }
  }

  private static FlightRuntimeException notFound() {
    return CallStatus.NOT_FOUND
        .withDescription(
            "Unknown prepared statement handle: it was not created by this server, or it has"
                + " been closed")
        .toRuntimeException();
  }

  /**
   * One prepared statement.
   *
   * <p>Its bound parameters are used under the statement's lock ({@code synchronized (prepared)}):
   * running the statement and binding new parameters (or closing it) take turns, so that a run
   * never reads parameters that are being freed.
   */
  static final class Prepared {
    private final ByteString handle;
    private final String sql;
    private final ByteString transactionId;
    private final int parameterCount;
    private final Schema parameterSchema;
    private final String insertPrefix;
    private ParameterBatches bound;

    private Prepared(
        ByteString handle,
        String sql,
        ByteString transactionId,
        int parameterCount,
        Schema parameterSchema,
        String insertPrefix) {
      this.handle = handle;
      this.sql = sql;
      this.transactionId = transactionId;
      this.parameterCount = parameterCount;
      this.parameterSchema = parameterSchema;
      this.insertPrefix = insertPrefix;
    }

    ByteString handle() {
      return handle;
    }

    String sql() {
      return sql;
    }

    /** The transaction the statement was prepared in, empty for none. */
    ByteString transactionId() {
      return transactionId;
    }

    int parameterCount() {
      return parameterCount;
    }

    Schema parameterSchema() {
      return parameterSchema;
    }

    /**
     * {@code INSERT INTO <target>} when the statement is a plain {@code INSERT INTO <target> VALUES
     * (?, ...)}, so that a whole upload of parameter rows can run as one {@code INSERT ... SELECT};
     * null otherwise.
     */
    String insertPrefix() {
      return insertPrefix;
    }

    /** Replaces the bound parameters (null for none), freeing the previous ones. */
    synchronized void bind(ParameterBatches parameters) {
      if (bound != null) {
        bound.close();
      }
      bound = parameters;
    }

    /** The bound parameters, null if none; only for use while holding this statement's lock. */
    ParameterBatches bound() {
      if (!Thread.holdsLock(this)) {
        throw new IllegalStateException("Bound parameters are read under the statement's lock");
      }
      return bound;
    }
  }
}
