"""ADBC's bulk ingestion of the write benchmark's rows, for WriteLimit (a Java class beside it).

Builds the rows of WriteBenchmark.lineitem as a pyarrow table, cut into record batches of
--batch-rows rows (as the Java side cuts its batches), once and outside any timing; then, for each line "ingest TABLE" read from
standard input, appends them to TABLE with one cursor.adbc_ingest (autocommit, as Arrow's own
client sends them) and prints "ingested ROWS SECONDS", the time of that call alone. Prints
"ready ROWS BYTES" once the rows are built, and ends at the end of its input.
"""

import argparse
import datetime
import sys
import time
from array import array

import adbc_driver_flightsql.dbapi as flightsql
import pyarrow as pa

# DATE'1992-01-02' as days since 1970-01-01.
FIRST_SHIPDATE = (datetime.date(1992, 1, 2) - datetime.date(1970, 1, 1)).days


def lineitem(first, end):
    """Rows first to end - 1 of WriteBenchmark.lineitem, value for value, as one record batch."""
    ids = range(first, end)
    rows = len(ids)
    # DECIMAL(12, 2) of (id % 100000) * 1.37: unscaled (id % 100000) * 137, as 128-bit
    # little-endian two's complement (non-negative values below 2^63: the high word is 0).
    unscaled = array("q")
    for i in ids:
        unscaled.append(i % 100000 * 137)
        unscaled.append(0)
    columns = {
        "l_orderkey": pa.array(ids, pa.int64()),
        "l_quantity": pa.array([i % 50 + 1 for i in ids], pa.int32()),
        "l_discount": pa.array([(i % 11) / 100 for i in ids], pa.float64()),
        "l_extendedprice": pa.Array.from_buffers(
            pa.decimal128(12, 2), rows, [None, pa.py_buffer(unscaled.tobytes())]
        ),
        "l_comment": pa.array(
            ["comment no " + str(i).zfill(10) + "abcdefghi"[: i % 10] for i in ids],
            pa.string(),
        ),
        "l_shipdate": pa.array([FIRST_SHIPDATE + i % 2526 for i in ids], pa.int32()).view(
            pa.date32()
        ),
        "l_receipt": pa.array([(694310400 + i * 13) * 1_000_000 for i in ids], pa.int64()).view(
            pa.timestamp("us")
        ),
    }
    return pa.RecordBatch.from_pydict(columns)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uri", required=True)
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--batch-rows", type=int, required=True)
    args = parser.parse_args()

    # Each batch built on its own, not sliced from one table: a slice would keep (and might send)
    # the buffers of every row.
    batches = [
        lineitem(first, min(first + args.batch_rows, args.rows))
        for first in range(0, args.rows, args.batch_rows)
    ]
    schema = batches[0].schema
    size = sum(batch.nbytes for batch in batches)
    with flightsql.connect(args.uri, autocommit=True) as connection:
        print("ready", args.rows, size, flush=True)
        for line in sys.stdin:
            command, table = line.split()
            if command != "ingest":
                raise SystemExit("unknown command: " + line)
            reader = pa.RecordBatchReader.from_batches(schema, batches)
            with connection.cursor() as cursor:
                start = time.perf_counter()
                written = cursor.adbc_ingest(table, reader, mode="append")
                took = time.perf_counter() - start
            print("ingested", written, f"{took:.6f}", flush=True)


if __name__ == "__main__":
    main()
