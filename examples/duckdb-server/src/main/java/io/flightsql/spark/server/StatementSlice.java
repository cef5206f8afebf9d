package io.flightsql.spark.server;

import com.google.protobuf.ByteString;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * One endpoint's share of a query: rows {@code [offset, offset + limit)} of the query's result, in
 * the order in which DuckDB produces them. A negative limit means "to the end", which the last
 * endpoint of a query uses so that no row is lost if the table grew since GetFlightInfo. A query
 * run inside a transaction names it, so that its rows are read on the transaction's connection. A
 * query run in a session (see {@link DuckDbSessions}) names it by its digest, so that only that
 * session reads it, and carries the session's default catalog and schema of the time, with which
 * its rows are read.
 *
 * <p>This is what the statement handle of a {@code TicketStatementQuery} carries, so that any
 * Flight SQL client can redeem the ticket. The encoding is private to this server and versioned: a
 * magic number, a version byte, offset, limit, the transaction id with its length (0 for none), the
 * session digest with its length (0 for none), the default catalog and schema (each a flag byte,
 * then the UTF-8 text with its length), the expiration time (epoch milliseconds, 0 for none), and
 * the UTF-8 SQL text with its length.
 *
 * @param expiresAtMillis when the ticket stops being redeemable, in epoch milliseconds; 0 for never
 */
record StatementSlice(
    String sql,
    ByteString transactionId,
    long offset,
    long limit,
    ByteString session,
    SessionDefaults defaults,
    long expiresAtMillis) {

  private static final int MAGIC = 0x44_44_42_53; // "DDBS"
  private static final byte VERSION = 4;

  /** The most bytes of a transaction id; this server's ids have 16. */
  private static final int MAX_TRANSACTION_ID_BYTES = 64;

  /** The most bytes of a session digest; this server's have 16. */
  private static final int MAX_SESSION_BYTES = 64;

  /** The most bytes of a catalog or schema name. */
  private static final int MAX_NAME_BYTES = 64 << 10;

  /**
   * Smallest encoding: magic, version, offset, limit, both id lengths, both flags, expiration, SQL
   * length.
   */
  private static final int HEADER_BYTES = 4 + 1 + 8 + 8 + 4 + 4 + 1 + 1 + 8 + 4;

  /**
   * Large enough for any realistic query, small enough that a corrupt length cannot exhaust heap.
   */
  private static final int MAX_SQL_BYTES = 64 << 20;

  StatementSlice {
    if (sql == null || transactionId == null || session == null || defaults == null) {
      throw new IllegalArgumentException(
          "sql, transactionId, session and defaults must not be null");
    }
    if (offset < 0) {
      throw new IllegalArgumentException("Invalid offset " + offset + ": expected >= 0");
    }
  }

  /** A slice of a query that runs outside any transaction and session. */
  StatementSlice(String sql, long offset, long limit) {
    this(sql, ByteString.EMPTY, offset, limit);
  }

  /** A slice of a query that runs outside any session. */
  StatementSlice(String sql, ByteString transactionId, long offset, long limit) {
    this(sql, transactionId, offset, limit, ByteString.EMPTY, SessionDefaults.NONE, 0);
  }

  /** This slice with another expiration time (epoch milliseconds, 0 for never). */
  StatementSlice expiringAt(long millis) {
    return new StatementSlice(sql, transactionId, offset, limit, session, defaults, millis);
  }

  /** Whether the ticket of this slice can no longer be redeemed at {@code nowMillis}. */
  boolean expiredAt(long nowMillis) {
    return expiresAtMillis > 0 && nowMillis >= expiresAtMillis;
  }

  /** Whether this slice reads to the end of the result. */
  boolean open() {
    return limit < 0;
  }

  ByteString encode() {
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream bytes =
        new ByteArrayOutputStream(HEADER_BYTES + transactionId.size() + text.length);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeByte(VERSION);
      out.writeLong(offset);
      out.writeLong(limit);
      out.writeInt(transactionId.size());
      transactionId.writeTo(out);
      out.writeInt(session.size());
      session.writeTo(out);
      writeName(out, defaults.catalog());
      writeName(out, defaults.schema());
      out.writeLong(expiresAtMillis);
      out.writeInt(text.length);
      out.write(text);
    } catch (IOException e) {
      throw new UncheckedIOException("Writing to a byte array cannot fail", e);
    }
    return ByteString.copyFrom(bytes.toByteArray());
  }

  /**
   * Reads a handle written by {@link #encode}.
   *
   * @throws IllegalArgumentException if the handle was not written by this server's version
   */
  static StatementSlice decode(ByteString handle) {
    byte[] bytes = handle.toByteArray();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (bytes.length < HEADER_BYTES || in.readInt() != MAGIC) {
        throw new IllegalArgumentException(
            "Invalid statement handle: not issued by this server (" + bytes.length + " bytes)");
      }
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalArgumentException(
            "Invalid statement handle: version " + version + ", expected " + VERSION);
      }
      long offset = in.readLong();
      long limit = in.readLong();
      int idLength = in.readInt();
      if (idLength < 0 || idLength > MAX_TRANSACTION_ID_BYTES || idLength > in.available()) {
        throw new IllegalArgumentException(
            "Invalid statement handle: corrupt transaction id length " + idLength);
      }
      ByteString transactionId = ByteString.copyFrom(in.readNBytes(idLength));
      int sessionLength = in.readInt();
      if (sessionLength < 0
          || sessionLength > MAX_SESSION_BYTES
          || sessionLength > in.available()) {
        throw new IllegalArgumentException(
            "Invalid statement handle: corrupt session length " + sessionLength);
      }
      ByteString session = ByteString.copyFrom(in.readNBytes(sessionLength));
      SessionDefaults defaults = new SessionDefaults(readName(in), readName(in));
      long expiresAtMillis = in.readLong();
      int length = in.readInt();
      if (length < 0 || length > MAX_SQL_BYTES || length != in.available()) {
        throw new IllegalArgumentException(
            "Invalid statement handle: corrupt SQL length " + length);
      }
      byte[] text = in.readNBytes(length);
      return new StatementSlice(
          new String(text, StandardCharsets.UTF_8),
          transactionId,
          offset,
          limit,
          session,
          defaults,
          expiresAtMillis);
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid statement handle: truncated", e);
    }
  }

  /** A flag byte (0: null), then the UTF-8 text with its length. */
  private static void writeName(DataOutputStream out, String name) throws IOException {
    if (name == null) {
      out.writeByte(0);
      return;
    }
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    out.writeByte(1);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String readName(DataInputStream in) throws IOException {
    byte flag = in.readByte();
    if (flag == 0) {
      return null;
    }
    int length = in.readInt();
    if (flag != 1 || length < 0 || length > MAX_NAME_BYTES || length > in.available()) {
      throw new IllegalArgumentException(
          "Invalid statement handle: corrupt catalog or schema name");
    }
    return new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }
}
