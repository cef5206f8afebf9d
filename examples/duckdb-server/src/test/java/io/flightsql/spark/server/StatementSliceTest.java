package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/** The statement handle inside every query ticket, and the SQL wrapped around queries. */
class StatementSliceTest {

  @Test
  void handlesRoundTrip() {
    StatementSlice slice = new StatementSlice("SELECT 'ünïcødé ✓' AS x", 12_345, 678);

    assertThat(StatementSlice.decode(slice.encode())).isEqualTo(slice);
    assertThat(StatementSlice.decode(new StatementSlice("SELECT 1", 0, -1).encode()).open())
        .isTrue();
    StatementSlice inTransaction =
        new StatementSlice("SELECT 2", ByteString.copyFrom(new byte[] {1, 2, 3}), 0, -1);
    assertThat(StatementSlice.decode(inTransaction.encode())).isEqualTo(inTransaction);
    assertThat(StatementSlice.decode(slice.encode()).transactionId()).isEqualTo(ByteString.EMPTY);
    StatementSlice inSession =
        new StatementSlice(
            "SELECT 3",
            ByteString.EMPTY,
            5,
            -1,
            ByteString.copyFrom(new byte[] {9, 8}),
            new SessionDefaults("catalog ✓", null),
            0);
    assertThat(StatementSlice.decode(inSession.encode())).isEqualTo(inSession);
    StatementSlice schemaOnly =
        new StatementSlice(
            "SELECT 4",
            ByteString.EMPTY,
            0,
            1,
            ByteString.EMPTY,
            new SessionDefaults(null, "s"),
            0);
    assertThat(StatementSlice.decode(schemaOnly.encode())).isEqualTo(schemaOnly);
    StatementSlice expiring = new StatementSlice("SELECT 5", 0, -1).expiringAt(1_700_000_000_123L);
    assertThat(StatementSlice.decode(expiring.encode())).isEqualTo(expiring);
    assertThat(expiring.expiredAt(1_700_000_000_122L)).isFalse();
    assertThat(expiring.expiredAt(1_700_000_000_123L)).isTrue();
    assertThat(slice.expiredAt(Long.MAX_VALUE)).as("no expiration").isFalse();
  }

  @Test
  void corruptHandlesAreRejected() {
    ByteString good = new StatementSlice("SELECT 1", 0, 10).encode();

    assertThatThrownBy(() -> StatementSlice.decode(ByteString.copyFromUtf8("SELECT 1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid statement handle: not issued by this server");
    assertThatThrownBy(() -> StatementSlice.decode(good.substring(0, good.size() - 1)))
        .hasMessageStartingWith("Invalid statement handle: corrupt SQL length");
    byte[] otherVersion = good.toByteArray();
    otherVersion[4] = 9;
    assertThatThrownBy(() -> StatementSlice.decode(ByteString.copyFrom(otherVersion)))
        .hasMessage("Invalid statement handle: version 9, expected 4");
    byte[] longTransactionId = good.toByteArray();
    longTransactionId[21] = 1; // the high byte of the transaction id length
    assertThatThrownBy(() -> StatementSlice.decode(ByteString.copyFrom(longTransactionId)))
        .hasMessageStartingWith("Invalid statement handle: corrupt transaction id length");
  }

  @Test
  void plainInsertsAreRecognisedForTheBulkPath() {
    assertThat(QuerySql.plainInsertPrefix("INSERT INTO t VALUES (?, ?)", 2))
        .isEqualTo("INSERT INTO t");
    assertThat(
            QuerySql.plainInsertPrefix(
                " insert or replace into \"my t\" (a, \"b\")values(?,?);\n", 2))
        .isEqualTo("insert or replace into \"my t\" (a, \"b\")");
    assertThat(QuerySql.plainInsertPrefix("INSERT INTO \"my VALUES\" VALUES (?)", 1))
        .isEqualTo("INSERT INTO \"my VALUES\"");
    // Not plain: expressions, several rows, RETURNING, a count that disagrees with DuckDB's.
    assertThat(QuerySql.plainInsertPrefix("INSERT INTO t VALUES (?, upper(?))", 2)).isNull();
    assertThat(QuerySql.plainInsertPrefix("INSERT INTO t VALUES (?), (?)", 2)).isNull();
    assertThat(QuerySql.plainInsertPrefix("INSERT INTO t VALUES (?) RETURNING *", 1)).isNull();
    assertThat(QuerySql.plainInsertPrefix("INSERT INTO t VALUES (?, ?)", 1)).isNull();
    assertThat(QuerySql.plainInsertPrefix("UPDATE t SET a = ? WHERE b = ?", 2)).isNull();
    // VALUES (?) inside a comment, a string or an unfinished quoted name is no VALUES clause.
    assertThat(QuerySql.plainInsertPrefix("INSERT INTO t VALUES (1) -- VALUES (?)", 1)).isNull();
    assertThat(QuerySql.plainInsertPrefix("INSERT INTO t SELECT 'VALUES (?)", 1)).isNull();
    assertThat(QuerySql.plainInsertPrefix("INSERT INTO \"t VALUES (?)", 1)).isNull();
  }

  @Test
  void queriesAreWrappedWithoutTheirTerminator() {
    assertThat(QuerySql.subquery("SELECT 1 ; \n;")).isEqualTo("SELECT * FROM (\nSELECT 1\n) AS q");
    assertThat(QuerySql.schemaProbe("SELECT 1 -- note")).endsWith("-- note\n) AS q LIMIT 0");
    assertThat(QuerySql.rowCount("FROM t")).isEqualTo("SELECT count(*) FROM (\nFROM t\n) AS q");
    assertThatThrownBy(() -> QuerySql.body(" ;\n "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The SQL query is empty");
  }

  @Test
  void identifiersAndLiteralsAreQuoted() {
    assertThat(QuerySql.qualifiedName("memory", "main", "we\"ird"))
        .isEqualTo("\"memory\".\"main\".\"we\"\"ird\"");
    assertThat(QuerySql.quoteLiteral("it's")).isEqualTo("'it''s'");
  }
}
