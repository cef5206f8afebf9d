package io.flightsql.spark.server;

import com.google.protobuf.ByteString;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's open transactions, and the DuckDB connection each call runs on.
 *
 * <p>A transaction is a DuckDB connection of its own on which {@code BEGIN TRANSACTION} ran, so
 * that nothing it does commits until {@link #end} commits it. That is also what JDBC's {@code
 * setAutoCommit(false)} comes to in DuckDB's driver, which sends a BEGIN before the next statement;
 * running it directly leaves the transaction's state to DuckDB alone. DuckDB takes the
 * transaction's snapshot at its first statement, not at the BEGIN. Its id is 16 random bytes: a
 * client can only reach a transaction that it was given. Calls that carry the id run on the
 * transaction's connection one at a time; calls without one get a new connection each, in DuckDB's
 * autocommit mode.
 *
 * <p>DuckDB aborts a transaction in which a statement failed: every later statement fails, and a
 * COMMIT silently rolls back instead. So that a client is never told that such a transaction
 * committed, {@link #end} checks first and reports the rollback as an error. Bulk ingestion marks
 * the transaction it failed in the same way ({@link Lease#doom}), even when the failure happened on
 * the Java side, since part of the upload may already be in the transaction.
 *
 * <p>Transactions that clients never end are rolled back by {@link #close()}.
 */
final class DuckDbTransactions implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DuckDbTransactions.class);

  private static final SecureRandom RANDOM = new SecureRandom();

  private final DuckDbDatabase database;
  private final Map<ByteString, Transaction> open = new ConcurrentHashMap<>();

  DuckDbTransactions(DuckDbDatabase database) {
    this.database = database;
  }

  /**
   * Starts a transaction and returns its id. Its statements have the default catalog and schema
   * that {@code defaults} name when it begins, whatever the session sets later.
   */
  ByteString begin(SessionDefaults defaults) throws SQLException {
    DuckDBConnection connection = database.connect(defaults);
    try {
      DuckDbDatabase.execute(connection, "BEGIN TRANSACTION");
    } catch (SQLException e) {
      closeQuietly(connection, e);
      throw e;
    }
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    ByteString id = ByteString.copyFrom(bytes);
    open.put(id, new Transaction(id, connection));
    LOG.info("Transaction {} begun ({} open)", label(id), open.size());
    return id;
  }

  /**
   * The connection for one call: the transaction's, held by this call alone until the lease is
   * closed, or, for an empty id, a new connection that closing the lease closes.
   *
   * @throws FlightRuntimeException NOT_FOUND for an id that names no open transaction
   */
  Lease lease(ByteString transactionId) throws SQLException {
    return lease(transactionId, SessionDefaults.NONE);
  }

  /**
   * Like {@link #lease(ByteString)}, with {@code defaults} as the default catalog and schema of a
   * new connection; a transaction's connection keeps those it began with.
   */
  Lease lease(ByteString transactionId, SessionDefaults defaults) throws SQLException {
    if (transactionId.isEmpty()) {
      return new Lease(database.connect(defaults), null);
    }
    Transaction transaction = open.get(transactionId);
    if (transaction == null) {
      throw notFound(transactionId);
    }
    transaction.lock.lock();
    if (transaction.ended) {
      transaction.lock.unlock();
      throw notFound(transactionId);
    }
    return new Lease(transaction.connection, transaction);
  }

  /**
   * Commits or rolls back a transaction, and forgets it either way.
   *
   * @throws FlightRuntimeException NOT_FOUND for an unknown id; INVALID_ARGUMENT when a commit was
   *     asked for but the transaction had failed, or DuckDB refused the commit: it is rolled back
   */
  void end(ByteString transactionId, boolean commit) throws SQLException {
    Transaction transaction = open.remove(transactionId);
    if (transaction == null) {
      throw notFound(transactionId);
    }
    transaction.lock.lock();
    try {
      transaction.ended = true;
      if (commit) {
        commit(transaction);
      } else {
        DuckDbDatabase.execute(transaction.connection, "ROLLBACK");
        LOG.info("Transaction {} rolled back", label(transactionId));
      }
    } finally {
      try {
        transaction.connection.close();
      } finally {
        transaction.lock.unlock();
      }
    }
  }

  private static void commit(Transaction transaction) throws SQLException {
    String failure = transaction.failure;
    if (failure == null) {
      // A transaction that DuckDB aborted refuses every statement, this probe included.
      try {
        DuckDbDatabase.queryString(transaction.connection, "SELECT 1");
      } catch (SQLException aborted) {
        failure = transaction.lastError != null ? transaction.lastError : aborted.getMessage();
      }
    }
    if (failure != null) {
      DuckDbDatabase.execute(transaction.connection, "ROLLBACK");
      LOG.info(
          "Transaction {} rolled back instead of committed: {}", label(transaction.id), failure);
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "Transaction "
                  + name(transaction.id)
                  + " was rolled back instead of committed, because a statement in it failed: "
                  + failure)
          .toRuntimeException();
    }
    try {
      DuckDbDatabase.execute(transaction.connection, "COMMIT");
    } catch (SQLException e) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "DuckDB could not commit transaction "
                  + name(transaction.id)
                  + ", which is rolled back: "
                  + e.getMessage())
          .withCause(e)
          .toRuntimeException();
    }
    LOG.info("Transaction {} committed", label(transaction.id));
  }

  /** How many transactions are open. */
  int openCount() {
    return open.size();
  }

  /**
   * Rolls back every transaction still open, which closes their connections. Runs once no call is
   * running any more.
   */
  @Override
  public void close() throws SQLException {
    List<Transaction> abandoned = new ArrayList<>(open.values());
    open.clear();
    SQLException first = null;
    for (Transaction transaction : abandoned) {
      LOG.warn("Rolling back transaction {}, which its client never ended", label(transaction.id));
      transaction.ended = true;
      try (DuckDBConnection connection = transaction.connection) {
        DuckDbDatabase.execute(connection, "ROLLBACK");
      } catch (SQLException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** The id as clients see it in messages: hexadecimal. */
  static String name(ByteString id) {
    return HexFormat.of().formatHex(id.toByteArray());
  }

  /**
   * The start of an id, enough to follow it through the log: an id is all a client needs to act on
   * a transaction or a prepared statement, so logs do not show it whole.
   */
  static String label(ByteString id) {
    return HexFormat.of().formatHex(id.substring(0, Math.min(4, id.size())).toByteArray()) + "…";
  }

  private static FlightRuntimeException notFound(ByteString id) {
    return CallStatus.NOT_FOUND
        .withDescription(
            "Unknown transaction "
                + name(id)
                + ": it was never begun on this server, or it has already been committed or rolled"
                + " back")
        .toRuntimeException();
  }

  private static void closeQuietly(DuckDBConnection connection, Exception failure) {
    try {
      connection.close();
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }

  private static final class Transaction {
    final ByteString id;
    final DuckDBConnection connection;
    final ReentrantLock lock = new ReentrantLock();
    // All guarded by lock.
    boolean ended;
    String failure;
    String lastError;

    Transaction(ByteString id, DuckDBConnection connection) {
      this.id = id;
      this.connection = connection;
    }
  }

  /** A call's use of a connection; closing it ends that use. */
  static final class Lease implements AutoCloseable {
    private final DuckDBConnection connection;
    private final Transaction transaction;

    private Lease(DuckDBConnection connection, Transaction transaction) {
      this.connection = connection;
      this.transaction = transaction;
    }

    DuckDBConnection connection() {
      return connection;
    }

    /** Whether the call runs inside a client's transaction. */
    boolean transactional() {
      return transaction != null;
    }

    /** Marks the transaction as unable to commit, with the reason that the commit will report. */
    void doom(String reason) {
      if (transaction != null && transaction.failure == null) {
        transaction.failure = reason;
      }
    }

    /**
     * Notes a statement's failure, to name as the reason should DuckDB have aborted the transaction
     * (DuckDB's own message for that names no statement). Once aborted, every statement fails with
     * that message, which names nothing, so those failures are not noted.
     */
    void failed(Exception e) {
      String message = e.getMessage();
      if (transaction != null
          && message != null
          && !message.contains(DuckDbDatabase.TRANSACTION_ABORTED)) {
        transaction.lastError = message;
      }
    }

    @Override
    public void close() throws SQLException {
      if (transaction == null) {
        connection.close();
      } else {
        transaction.lock.unlock();
      }
    }
  }
}
