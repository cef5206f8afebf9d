"""Starts Deephaven's server for the integration tests, with the contract tables as globals.

Usage: start_deephaven.py PORT. Prints READY once the tables exist, then serves until killed.
Anonymous authentication: every call must carry the header `authorization: Anonymous` (or the
session token the server returns).
"""
import sys
import time

from deephaven_server import Server

port = int(sys.argv[1])
server = Server(
    host="127.0.0.1",
    port=port,
    jvm_args=[
        "-Xmx1g",
        "-DAuthHandlers=io.deephaven.auth.AnonymousAuthenticationHandler",
    ],
)
server.start()

from deephaven import new_table  # noqa: E402 (needs the started JVM)
from deephaven.column import (  # noqa: E402
    bool_col,
    byte_col,
    datetime_col,
    double_col,
    float_col,
    int_col,
    long_col,
    short_col,
    string_col,
)
from deephaven.time import to_j_instant  # noqa: E402

import __main__  # noqa: E402

# The rows of FlightSqlContractSuite.ROWS; seen_at as UTC instants.
__main__.contract_people = new_table([
    long_col("id", [1, 2, 3, 4, 5]),
    string_col("name", ["alice", "bob", None, "Zo\u00eb \u2713", "it's"]),
    double_col("score", [1.5, None, -2.25, 0.0, 1.0e10]),
    datetime_col("seen_at", [
        to_j_instant("2024-01-02T03:04:05 UTC"),
        to_j_instant("1999-12-31T23:59:59 UTC"),
        None,
        to_j_instant("1970-01-01T00:00:00 UTC"),
        to_j_instant("2038-01-19T03:14:08 UTC"),
    ]),
])
# The rows of OptimizerContract.VISIT_ROWS.
__main__.contract_visits = new_table([
    long_col("id", [10, 11, 12, 13, 14, 15]),
    string_col("name", ["alice", "alice", None, "it's", "nobody", "bob"]),
    double_col("score", [2.0, None, 3.0, -2.25, 5.0, 1.5]),
    datetime_col("seen_at", [
        to_j_instant("2024-01-02T03:04:05 UTC"),
        None,
        to_j_instant("2001-01-01T00:00:00 UTC"),
        to_j_instant("2010-05-05T05:05:05 UTC"),
        None,
        to_j_instant("1999-12-31T23:59:59 UTC"),
    ]),
])
# The numeric table of AggregateContract (DeephavenQuirks.numericColumns): each type's smallest
# value is Deephaven's NULL, so the edges are the smallest value but one and the largest.
__main__.contract_numbers = new_table([
    int_col("g", [0, 1, 0, 1, 0]),
    byte_col("c_byte", [-127, 127, 127, None, 1]),
    short_col("c_short", [-32767, 32767, 30000, 30000, None]),
    int_col("c_int", [-2147483647, 2147483647, 2147483647, 1, None]),
    long_col("c_long", [-9223372036854775807, 9223372036854775807, 1, -1, None]),
    float_col("c_float", [3.4028234663852886e38, 3.4028234663852886e38, 0.5, -2.0, None]),
    double_col("c_double", [1.7976931348623157e308, 1.7976931348623157e308, 0.25, -2.0, None]),
])
# The reported cases of AggregateContract.
__main__.contract_reported = new_table([
    int_col("g", [0, 1]),
    int_col("x", [1, 2]),
    short_col("s", [30000, 30000]),
])
__main__.deephaven_strings = new_table([
    long_col("id", [1, 2, 3]),
    string_col("s", ["41", "42", "43"]),
])
# The table of the per-server latency benchmark (LatencyServers in examples/spark-apps).
__main__.latency_items = new_table([
    long_col("id", list(range(1, 101))),
    string_col("name", [f"item {i}" for i in range(1, 101)]),
    double_col("score", [i * 1.5 for i in range(1, 101)]),
])
# The table of the differential fuzzer (DeephavenFuzzTable in the integration tests): the same rows.
# Deephaven keeps the smallest value of each integer width as its NULL, so none is written.
__main__.fuzz_rows = new_table([
    long_col("c0_bigint", [1, 2, 9223372036854775807, 42, 42, -9000000000000000, 0, None]),
    int_col("c1_int", [1, 0, 2147483647, 1, None, -7, 2000000000, 3]),
    short_col("c2_smallint", [30000, 30000, 32767, 7, None, -1, 0, 30000]),
    double_col("c3_double", [
        1.5, float("nan"), 1.0e300, None, 0.1, float("inf"), float("-inf"), 0.1]),
    float_col("c4_real", [1.5, -2.25, 3.4e38, None, 0.1, 0.0, 1.0e-30, None]),
    string_col("c5_string", [
        "alice", "Alice", "Zo\u00eb \u2713", "it's", None, "50%_off", "", "a "]),
    bool_col("c6_boolean", [True, False, None, True, False, True, None, True]),
    datetime_col("c7_timestamp_tz", [
        to_j_instant("2024-01-02T03:04:05 UTC"),
        to_j_instant("1970-01-01T00:00:00 UTC"),
        None,
        to_j_instant("1999-12-31T23:59:59 UTC"),
        to_j_instant("2038-01-19T03:14:08 UTC"),
        to_j_instant("1969-12-31T23:59:59 UTC"),
        to_j_instant("2024-01-01T22:34:05 UTC"),
        to_j_instant("2024-01-02T03:04:05 UTC"),
    ]),
])
print("READY", flush=True)
while True:
    time.sleep(3600)
