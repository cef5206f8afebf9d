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
        .hasMessage("Invalid statement handle: version 9, expected 1");
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
