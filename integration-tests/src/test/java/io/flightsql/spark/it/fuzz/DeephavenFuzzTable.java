package io.flightsql.spark.it.fuzz;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The one table the fuzzer reads on Deephaven, which runs no DDL through Flight SQL: {@code
 * fuzz_rows}, made by the server's start-up script ({@code start_deephaven.py}) with these rows.
 * Deephaven keeps the smallest value of each integer width (and {@code -Double.MAX_VALUE}) as its
 * NULL, so the rows hold none of those; shrinking cannot drop its rows, only simplify the read.
 */
final class DeephavenFuzzTable {
  static final Map<Family, String> TYPES = types();

  static final FuzzTable TABLE =
      new FuzzTable(
          "fuzz_rows",
          List.of(
              new FuzzTable.Column("c0_bigint", Family.BIGINT),
              new FuzzTable.Column("c1_int", Family.INT),
              new FuzzTable.Column("c2_smallint", Family.SMALLINT),
              new FuzzTable.Column("c3_double", Family.DOUBLE),
              new FuzzTable.Column("c4_real", Family.REAL),
              new FuzzTable.Column("c5_string", Family.STRING),
              new FuzzTable.Column("c6_boolean", Family.BOOLEAN),
              new FuzzTable.Column("c7_timestamp_tz", Family.TIMESTAMP_TZ)),
          List.of(
              row(1L, 1, (short) 30000, 1.5, 1.5f, "alice", true, utc(2024, 1, 2, 3, 4, 5)),
              row(
                  2L,
                  0,
                  (short) 30000,
                  Double.NaN,
                  -2.25f,
                  "Alice",
                  false,
                  utc(1970, 1, 1, 0, 0, 0)),
              row(
                  Long.MAX_VALUE,
                  Integer.MAX_VALUE,
                  Short.MAX_VALUE,
                  1.0e300,
                  3.4e38f,
                  "Zoë ✓",
                  null,
                  null),
              row(42L, 1, (short) 7, null, null, "it's", true, utc(1999, 12, 31, 23, 59, 59)),
              row(42L, null, null, 0.1, 0.1f, null, false, utc(2038, 1, 19, 3, 14, 8)),
              row(
                  -9_000_000_000_000_000L,
                  -7,
                  (short) -1,
                  Double.POSITIVE_INFINITY,
                  0.0f,
                  "50%_off",
                  true,
                  utc(1969, 12, 31, 23, 59, 59)),
              row(
                  0L,
                  2_000_000_000,
                  (short) 0,
                  Double.NEGATIVE_INFINITY,
                  1.0e-30f,
                  "",
                  null,
                  utc(2024, 1, 1, 22, 34, 5)),
              row(null, 3, (short) 30000, 0.1, null, "a ", true, utc(2024, 1, 2, 3, 4, 5))),
          false);

  private DeephavenFuzzTable() {}

  private static Map<Family, String> types() {
    Map<Family, String> types = new EnumMap<>(Family.class);
    types.put(Family.BIGINT, "long");
    types.put(Family.INT, "int");
    types.put(Family.SMALLINT, "short");
    types.put(Family.DOUBLE, "double");
    types.put(Family.REAL, "float");
    types.put(Family.STRING, "String");
    types.put(Family.BOOLEAN, "Boolean");
    types.put(Family.TIMESTAMP_TZ, "Instant");
    return types;
  }

  private static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  private static OffsetDateTime utc(int y, int mo, int d, int h, int mi, int s) {
    return OffsetDateTime.of(y, mo, d, h, mi, s, 0, ZoneOffset.UTC);
  }
}
