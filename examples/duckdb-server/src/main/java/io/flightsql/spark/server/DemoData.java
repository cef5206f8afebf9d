package io.flightsql.spark.server;

import java.sql.SQLException;

/**
 * The demo tables every server starts with, generated in SQL so that they need no download and are
 * identical on every start, on every machine.
 *
 * <ul>
 *   <li>{@code lineitem}: shaped like TPC-H's table of that name (same columns and types, similar
 *       value ranges), but its values come from fixed arithmetic on the row number rather than from
 *       dbgen, whose DuckDB extension would have to be downloaded.
 *   <li>{@code types_demo}: ten rows that cover the scalar types a connector has to map, with edge
 *       values (extremes, epoch, pre-1970 dates and timestamps, empty and non-ASCII strings) and a
 *       row that is NULL in every column but {@code id}.
 * </ul>
 */
final class DemoData {

  static final String LINEITEM = "lineitem";
  static final String TYPES_DEMO = "types_demo";
  static final long MAX_LINEITEM_ROWS = 2_000_000_000L;

  /**
   * Three independent pseudo-random streams over the row number {@code i}: multiplicative hashes
   * modulo primes below 2^32. Plain BIGINT arithmetic (no {@code hash()}, whose values DuckDB may
   * change between versions) keeps the data the same on every DuckDB version; the products stay
   * below 2^63 for up to 2.8 billion rows ({@link #MAX_LINEITEM_ROWS}).
   */
  private static final String LINEITEM_SQL =
      """
      CREATE TABLE lineitem AS
      WITH g AS (
        SELECT
          i,
          (i * 2654435761 + 1013904223) % 4294967291 AS h1,
          (i * 2246822519 + 3266489917) % 4294967279 AS h2,
          (i * 3266489917 + 668265263) % 4294967231 AS h3
        FROM range(0, {rows}) AS r(i)
      ), k AS (
        SELECT
          i, h1, h2, h3,
          h1 % 200000 + 1 AS partkey,
          DATE '1992-01-02' + CAST(h2 % 2406 AS INTEGER) AS shipdate
        FROM g
      )
      SELECT
        CAST(i // 4 + 1 AS BIGINT) AS l_orderkey,
        CAST(partkey AS BIGINT) AS l_partkey,
        CAST((partkey + (i % 4) * 2501) % 10000 + 1 AS BIGINT) AS l_suppkey,
        CAST(i % 4 + 1 AS INTEGER) AS l_linenumber,
        CAST(h2 % 50 + 1 AS DECIMAL(15, 2)) AS l_quantity,
        CAST((h2 % 50 + 1) * (90000 + partkey % 20001 + partkey // 10 % 1000) / 100
             AS DECIMAL(15, 2)) AS l_extendedprice,
        CAST(h3 % 11 / 100 AS DECIMAL(15, 2)) AS l_discount,
        CAST(h1 % 9 / 100 AS DECIMAL(15, 2)) AS l_tax,
        CAST(CASE
               WHEN shipdate + CAST(h3 % 30 + 1 AS INTEGER) > DATE '1995-06-17' THEN 'N'
               WHEN h3 % 2 = 0 THEN 'R'
               ELSE 'A'
             END AS VARCHAR(1)) AS l_returnflag,
        CAST(CASE WHEN shipdate > DATE '1995-06-17' THEN 'O' ELSE 'F' END AS VARCHAR(1))
          AS l_linestatus,
        shipdate AS l_shipdate,
        shipdate + CAST(h1 % 61 - 30 AS INTEGER) AS l_commitdate,
        shipdate + CAST(h3 % 30 + 1 AS INTEGER) AS l_receiptdate,
        ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'][h1 % 4 + 1]
          AS l_shipinstruct,
        ['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'][h2 % 7 + 1] AS l_shipmode,
        substr('carefully final deposits detect slyly. ironic requests sleep quickly; '
                 || 'blithely regular accounts haggle furiously above the pending packages',
               CAST(h3 % 60 + 1 AS INTEGER), CAST(h1 % 31 + 10 AS INTEGER)) AS l_comment
      FROM k
      """;

  private static final String TYPES_DEMO_SQL =
      """
      CREATE TABLE types_demo (
        id INTEGER NOT NULL,
        c_tinyint TINYINT,
        c_smallint SMALLINT,
        c_int INTEGER,
        c_bigint BIGINT,
        c_float REAL,
        c_double DOUBLE,
        c_dec_short DECIMAL(10, 2),
        c_dec_long DECIMAL(38, 10),
        c_varchar VARCHAR,
        c_blob BLOB,
        c_bool BOOLEAN,
        c_date DATE,
        c_ts TIMESTAMP,
        c_tstz TIMESTAMPTZ
      );
      INSERT INTO types_demo VALUES
        (1, 0, 0, 0, 0, 0.0, 0.0, 0.00, 0, '', ''::BLOB, false,
         DATE '1970-01-01', TIMESTAMP '1970-01-01 00:00:00',
         TIMESTAMPTZ '1970-01-01 00:00:00+00'),
        (2, 127, 32767, 2147483647, 9223372036854775807, 3.4028235e38, 1.7976931348623157e308,
         99999999.99, 9999999999999999999999999999.9999999999, 'ünïcødé ✓', '\\xDE\\xAD\\xBE\\xEF'::BLOB,
         true, DATE '2024-02-29', TIMESTAMP '2024-02-29 12:34:56.789012',
         TIMESTAMPTZ '2024-02-29 12:34:56.789012+00'),
        (3, -128, -32768, -2147483648, -9223372036854775808, -1.5, -2.25,
         -99999999.99, -9999999999999999999999999999.9999999999, 'plain ASCII', '\\x00\\xFF'::BLOB,
         false, DATE '1969-07-20', TIMESTAMP '1969-07-20 20:17:40.123456',
         TIMESTAMPTZ '1969-07-20 22:17:40.5+02'),
        (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (5, 1, 1, 1, 1, 0.5, 0.1, 0.01, 0.0000000001, 'it''s "quoted"', 'bytes'::BLOB, true,
         DATE '1900-01-01', TIMESTAMP '1900-01-01 00:00:00.000001',
         TIMESTAMPTZ '1900-01-01 00:00:00+00'),
        (6, -1, -1, -1, -1, -0.25, -1e-300, -0.01, -1234567890.0123456789,
         'tab' || chr(9) || 'and' || chr(10) || 'newline', 'x'::BLOB, false, DATE '2000-01-01',
         TIMESTAMP '1999-12-31 23:59:59.999999', TIMESTAMPTZ '2000-01-01 05:30:00+05:30'),
        (7, 42, 4242, 424242, 42424242424242, 42.125, 4.2e42, 42.42,
         4242424242424242424242424242.4242424242, 'Grüße, 世界', 'forty-two'::BLOB, true,
         DATE '2100-12-31', TIMESTAMP '2100-12-31 23:59:59.5',
         TIMESTAMPTZ '2100-12-31 23:59:59.5+00'),
        (8, 100, 1000, 100000, 10000000000, 1e-30, 1e-300, 12345678.90,
         0.5, 'emoji 🚀', '\\x80'::BLOB, false, DATE '1950-06-15', TIMESTAMP '1950-06-15 08:00:00.5',
         TIMESTAMPTZ '1950-06-15 08:00:00.5+00'),
        (9, -100, -1000, -100000, -10000000000, 1e30, 1e300, -12345678.90,
         -0.5, ' leading and trailing spaces ', '\\x01\\x02\\x03'::BLOB, true,
         DATE '1999-12-31', TIMESTAMP '1969-12-31 23:59:59.999999',
         TIMESTAMPTZ '1969-12-31 23:59:59.999999+00'),
        (10, 10, 10, 10, 10, 10.0, 10.0, 10.00, 10, 'ten', 'ten'::BLOB, true,
         DATE '2038-01-19', TIMESTAMP '2038-01-19 03:14:08',
         TIMESTAMPTZ '2038-01-19 03:14:08+00');
      """;

  private DemoData() {}

  /** Creates {@code lineitem} with {@code rows} rows, or nothing when {@code rows} is 0. */
  static void createLineitem(DuckDbDatabase database, long rows) throws SQLException {
    if (rows > 0) {
      database.execute(lineitemSql(rows));
    }
  }

  /** Creates and fills {@code types_demo}. */
  static void createTypesDemo(DuckDbDatabase database) throws SQLException {
    database.execute(TYPES_DEMO_SQL);
  }

  static String lineitemSql(long rows) {
    return LINEITEM_SQL.replace("{rows}", Long.toString(rows));
  }
}
