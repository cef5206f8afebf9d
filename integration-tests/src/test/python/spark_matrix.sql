-- The tables that spark_matrix.py reads, loaded into the embedded DuckDB server at start-up
-- (DuckDbFlightSqlServerBuilder.data). One column per type family that the server sends; the
-- script holds the values it expects for each, so change both together.
CREATE TYPE matrix_mood AS ENUM ('sad', 'ok', 'happy');

CREATE TABLE matrix_types (
  id INTEGER NOT NULL,
  c_tinyint TINYINT,
  c_smallint SMALLINT,
  c_int INTEGER,
  c_bigint BIGINT,
  c_utinyint UTINYINT,
  c_ubigint UBIGINT,
  c_hugeint HUGEINT,
  c_float FLOAT,
  c_double DOUBLE,
  c_dec_short DECIMAL(10, 2),
  c_dec_long DECIMAL(38, 10),
  c_varchar VARCHAR,
  c_blob BLOB,
  c_bool BOOLEAN,
  c_date DATE,
  c_ts TIMESTAMP,
  c_ts_ms TIMESTAMP_MS,
  c_ts_ns TIMESTAMP_NS,
  c_tstz TIMESTAMPTZ,
  c_time TIME,
  c_interval INTERVAL,
  c_uuid UUID,
  c_enum matrix_mood,
  c_list INTEGER[],
  c_fixed INTEGER[2],
  c_struct STRUCT(a INTEGER, b VARCHAR),
  c_map MAP(VARCHAR, INTEGER),
  c_nested STRUCT(tags VARCHAR[], scores MAP(VARCHAR, DOUBLE))[]
);

INSERT INTO matrix_types VALUES
  (1, 127, 32767, 2147483647, 9223372036854775807, 255, 18446744073709551615,
   12345678901234567890123, 1.5, 1.7976931348623157e308, 99999999.99,
   9999999999999999999999999999.9999999999, 'ünïcødé ✓ 🚀', '\xDE\xAD\xBE\xEF'::BLOB, true,
   DATE '2024-02-29', TIMESTAMP '2024-02-29 12:34:56.789012', TIMESTAMP_MS '2024-02-29 12:34:56.789',
   TIMESTAMP_NS '2024-02-29 12:34:56.123456789', TIMESTAMPTZ '2024-02-29 12:34:56.789012+00',
   TIME '12:34:56.789012', INTERVAL '1 month 2 days 3 seconds',
   '0b3c7a9e-5f1d-4a2b-8c6d-9e0f1a2b3c4d', 'happy', [1, 2, NULL], [3, 4], {'a': 1, 'b': 'x'},
   MAP {'k': 1, 'l': NULL}, [{'tags': ['t1', 't2'], 'scores': MAP {'s': 0.5}}]),
  (2, -128, -32768, -2147483648, -9223372036854775808, 0, 0,
   -1, -0.25, -2.5e-300, -99999999.99,
   -0.0000000001, '', ''::BLOB, false,
   DATE '1969-07-20', TIMESTAMP '1969-07-20 20:17:40.5', TIMESTAMP_MS '1900-01-01 00:00:00.001',
   TIMESTAMP_NS '1969-12-31 23:59:59.999999999', TIMESTAMPTZ '1969-07-20 22:17:40.5+02',
   TIME '00:00:00', INTERVAL '-1 year',
   '00000000-0000-0000-0000-000000000000', 'sad', [], [NULL, 5], {'a': NULL, 'b': NULL},
   MAP {}, []),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
