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
 * run inside a transaction names it, so that its rows are read on the transaction's connection.
 *
 * <p>This is what the statement handle of a {@code TicketStatementQuery} carries, so that any
 * Flight SQL client can redeem the ticket. The encoding is private to this server and versioned: a
 * magic number, a version byte, offset, limit, the transaction id with its length (0 for none), and
 * the UTF-8 SQL text with its length.
 */
record StatementSlice(String sql, ByteString transactionId, long offset, long limit) {

  private static final int MAGIC = 0x44_44_42_53; // "DDBS"
  private static final byte VERSION = 2;

  /** The most bytes of a transaction id; this server's ids have 16. */
  private static final int MAX_TRANSACTION_ID_BYTES = 64;

  /** Smallest encoding: magic, version, offset, limit and both lengths. */
  private static final int HEADER_BYTES = 4 + 1 + 8 + 8 + 4 + 4;

  /**
   * Large enough for any realistic query, small enough that a corrupt length cannot exhaust heap.
   */
  private static final int MAX_SQL_BYTES = 64 << 20;

  StatementSlice {
    if (sql == null || transactionId == null) {
      throw new IllegalArgumentException("sql and transactionId must not be null");
    }
    if (offset < 0) {
      throw new IllegalArgumentException("Invalid offset " + offset + ": expected >= 0");
    }
  }

  /** A slice of a query that runs outside any transaction. */
  StatementSlice(String sql, long offset, long limit) {
    this(sql, ByteString.EMPTY, offset, limit);
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
      int length = in.readInt();
      if (length < 0 || length > MAX_SQL_BYTES || length != in.available()) {
        throw new IllegalArgumentException(
            "Invalid statement handle: corrupt SQL length " + length);
      }
      byte[] text = in.readNBytes(length);
      return new StatementSlice(
          new String(text, StandardCharsets.UTF_8), transactionId, offset, limit);
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid statement handle: truncated", e);
    }
  }
}
