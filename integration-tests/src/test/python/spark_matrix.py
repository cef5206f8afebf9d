"""What a PySpark user does with spark-flightsql, checked on whichever Spark runs it.

    spark-submit --jars spark-flightsql-<version>.jar spark_matrix.py --uri grpc://127.0.0.1:31337

SparkVersionMatrixIT runs it under each PySpark release the connector supports, against the
embedded DuckDB server loaded with spark_matrix.sql. The checks come in sections; each prints one
line that the test reads:

    MATRIX <section> PASSED
    MATRIX <section> SKIPPED <why>
    MATRIX <section> FAILED <what>

and the script exits with 1 when any section failed. A section is a function decorated with
@section("name"): to add one, write the function; main() runs every section in order, each in a
fresh state, and a failing one does not stop the others. Tables a section writes are named
matrix_<section>_..., so that sections never share one.
"""
import argparse
import contextlib
import datetime
import io
import os
import re
import sys
import time
import traceback
from decimal import Decimal

# Timestamps come to Python as naive datetimes in the process's time zone: make it UTC, so the
# expected values below hold on any machine.
os.environ["TZ"] = "UTC"
time.tzset()

from pyspark.sql import Row, SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

SECTIONS = []


def section(name):
    """Registers a check; they run in the order they are defined."""

    def register(check):
        SECTIONS.append((name, check))
        return check

    return register


class Skip(Exception):
    """Raised by a section that does not apply to the running Spark."""


class Matrix:
    """What every section needs: the session, the server and shorthands for reads and writes."""

    PUSHDOWN_OPTIONS = ("pushDownPredicate", "pushDownAggregate", "pushDownLimit",
                        "pushDownOffset", "pushDownTopN")

    def __init__(self, spark, uri):
        self.spark = spark
        self.uri = uri
        self.version = tuple(int(part) for part in re.findall(r"\d+", spark.version)[:2])

    def read(self, table, pushdown=True, **options):
        reader = self.spark.read.format("flightsql").option("uri", self.uri)
        reader = reader.option("dbtable", table)
        if not pushdown:
            for name in self.PUSHDOWN_OPTIONS:
                reader = reader.option(name, "false")
        for name, value in options.items():
            reader = reader.option(name, value)
        return reader.load()

    def write(self, df, table, mode, **options):
        writer = df.write.format("flightsql").option("uri", self.uri).option("dbtable", table)
        for name, value in options.items():
            writer = writer.option(name, value)
        writer.mode(mode).save()


def plan(df):
    """What df.explain() prints: the physical plan, with the scan's description."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        df.explain()
    return out.getvalue()


def scan_sql(df):
    """The SQL the scan sends to the server, as EXPLAIN shows it."""
    match = re.search(r"SQL: (.*)\] RuntimeFilters", plan(df))
    if match is None:
        match = re.search(r"SQL: (.*)\]", plan(df))
    check(match is not None, "no 'SQL:' in the plan:\n" + plan(df))
    return match.group(1)


def jvm_schema(df):
    """The schema as Spark's JVM prints it; PySpark 3.5 cannot parse some types (INTERVAL)."""
    return df._jdf.schema().catalogString()


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def check_equal(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}:\n  expected {expected!r}\n  got      {actual!r}")


def plain(value):
    """A collected value with Rows as dicts and bytearrays as bytes, to compare with literals."""
    if isinstance(value, Row):
        return {key: plain(item) for key, item in value.asDict().items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def rows(df, *order):
    """The rows of df as plain values, ordered by the given columns (or all, in order)."""
    return [plain(row) for row in df.orderBy(*(order or df.columns)).collect()]


# ---------------------------------------------------------------------------------------------
# reads: every type family of the embedded server (spark_matrix.sql), values and Spark types
# ---------------------------------------------------------------------------------------------

TYPES_SCHEMA = (
    "struct<id:int,c_tinyint:tinyint,c_smallint:smallint,c_int:int,c_bigint:bigint,"
    "c_utinyint:smallint,c_ubigint:decimal(20,0),c_hugeint:decimal(38,0),c_float:float,"
    "c_double:double,c_dec_short:decimal(10,2),c_dec_long:decimal(38,10),c_varchar:string,"
    "c_blob:binary,c_bool:boolean,c_date:date,c_ts:timestamp_ntz,c_ts_ms:timestamp_ntz,"
    "c_ts_ns:timestamp_ntz,c_tstz:timestamp,c_time:bigint,c_interval:interval,c_uuid:string,"
    "c_enum:string,c_list:array<int>,c_fixed:array<int>,c_struct:struct<a:int,b:string>,"
    "c_map:map<string,int>,"
    "c_nested:array<struct<tags:array<string>,scores:map<string,double>>>>")

EXPECTED_TYPES = [
    {
        "id": 1, "c_tinyint": 127, "c_smallint": 32767, "c_int": 2147483647,
        "c_bigint": 9223372036854775807, "c_utinyint": 255,
        "c_ubigint": Decimal("18446744073709551615"),
        "c_hugeint": Decimal("12345678901234567890123"), "c_float": 1.5,
        "c_double": 1.7976931348623157e308, "c_dec_short": Decimal("99999999.99"),
        "c_dec_long": Decimal("9999999999999999999999999999.9999999999"),
        "c_varchar": "ünïcødé ✓ 🚀", "c_blob": b"\xde\xad\xbe\xef", "c_bool": True,
        "c_date": datetime.date(2024, 2, 29),
        "c_ts": datetime.datetime(2024, 2, 29, 12, 34, 56, 789012),
        "c_ts_ms": datetime.datetime(2024, 2, 29, 12, 34, 56, 789000),
        "c_ts_ns": datetime.datetime(2024, 2, 29, 12, 34, 56, 123456),
        "c_tstz": datetime.datetime(2024, 2, 29, 12, 34, 56, 789012),
        "c_time": 45296789012, "c_interval": "1 months 2 days 3 seconds",
        "c_uuid": "0b3c7a9e-5f1d-4a2b-8c6d-9e0f1a2b3c4d", "c_enum": "happy",
        "c_list": [1, 2, None], "c_fixed": [3, 4], "c_struct": {"a": 1, "b": "x"},
        "c_map": {"k": 1, "l": None},
        "c_nested": [{"tags": ["t1", "t2"], "scores": {"s": 0.5}}],
    },
    {
        "id": 2, "c_tinyint": -128, "c_smallint": -32768, "c_int": -2147483648,
        "c_bigint": -9223372036854775808, "c_utinyint": 0, "c_ubigint": Decimal(0),
        "c_hugeint": Decimal(-1), "c_float": -0.25, "c_double": -2.5e-300,
        "c_dec_short": Decimal("-99999999.99"), "c_dec_long": Decimal("-0.0000000001"),
        "c_varchar": "", "c_blob": b"", "c_bool": False, "c_date": datetime.date(1969, 7, 20),
        "c_ts": datetime.datetime(1969, 7, 20, 20, 17, 40, 500000),
        "c_ts_ms": datetime.datetime(1900, 1, 1, 0, 0, 0, 1000),
        "c_ts_ns": datetime.datetime(1969, 12, 31, 23, 59, 59, 999999),
        "c_tstz": datetime.datetime(1969, 7, 20, 20, 17, 40, 500000),
        "c_time": 0, "c_interval": "-1 years",
        "c_uuid": "00000000-0000-0000-0000-000000000000", "c_enum": "sad",
        "c_list": [], "c_fixed": [None, 5], "c_struct": {"a": None, "b": None}, "c_map": {},
        "c_nested": [],
    },
    dict({"id": 3}, **{column: None for column in (
        "c_tinyint", "c_smallint", "c_int", "c_bigint", "c_utinyint", "c_ubigint", "c_hugeint",
        "c_float", "c_double", "c_dec_short", "c_dec_long", "c_varchar", "c_blob", "c_bool",
        "c_date", "c_ts", "c_ts_ms", "c_ts_ns", "c_tstz", "c_time", "c_interval", "c_uuid",
        "c_enum", "c_list", "c_fixed", "c_struct", "c_map", "c_nested")}),
]


def types_rows(df):
    """matrix_types' rows, with the interval as Spark's text: PySpark 3.5 has no Python form."""
    columns = [F.col(name) for name in df._jdf.columns() if name != "c_interval"]
    columns.append(F.col("c_interval").cast("string").alias("c_interval"))
    return rows(df.select(*columns), "id")


def check_rows_by_column(actual, expected, what):
    check_equal(len(actual), len(expected), what + ": row count")
    for got, want in zip(actual, expected):
        for column in want:
            check_equal(got.get(column), want[column], f"{what}: row id={want['id']} {column}")
        check_equal(sorted(got), sorted(want), f"{what}: columns of row id={want['id']}")


@section("reads")
def reads(m):
    df = m.read("matrix_types")
    check_equal(jvm_schema(df), TYPES_SCHEMA, "Spark schema of matrix_types")
    check_rows_by_column(types_rows(df), EXPECTED_TYPES, "matrix_types")
    # The same through option 'query', and a count, which reads no column at all.
    query = (m.spark.read.format("flightsql").option("uri", m.uri)
             .option("query", "SELECT * FROM matrix_types WHERE id <= 2").load())
    check_rows_by_column(types_rows(query), EXPECTED_TYPES[:2], "query over matrix_types")
    check_equal(m.read("lineitem").count(), LINEITEM_ROWS, "lineitem count")


# ---------------------------------------------------------------------------------------------
# pushdown: each kind, pushed (EXPLAIN says so) and not pushed (options false), same rows
# ---------------------------------------------------------------------------------------------

LINEITEM_ROWS = None  # set by main() from --lineitem-rows


def pushed_and_not(m, build, marker, what, ordered=False):
    """Runs a query with pushdown on and off; checks EXPLAIN and that both give the same rows.

    marker is a regular expression that the scan's description matches only when pushed.
    """
    on = build(m.read("lineitem"))
    off = build(m.read("lineitem", pushdown=False))
    plan_on, plan_off = plan(on), plan(off)
    check(re.search(marker, plan_on), f"{what}: /{marker}/ not in the plan:\n{plan_on}")
    check(not re.search(marker, plan_off),
          f"{what}: /{marker}/ in the plan with pushdown off:\n{plan_off}")
    if ordered:
        check_equal([plain(r) for r in on.collect()], [plain(r) for r in off.collect()],
                    what + ": rows, in order, pushed vs. not pushed")
    else:
        check_equal(rows(on), rows(off), what + ": rows pushed vs. not pushed")
    return on


def some_of(m, where, cut, marker, count, what):
    """A limit or offset without an order, pushed and not: the same number of distinct rows,
    each one of those the query has without the cut."""
    key = ["l_orderkey", "l_linenumber"]
    universe = set(tuple(r) for r in m.read("lineitem").where(where).select(*key).collect())
    on = cut(m.read("lineitem").where(where))
    off = cut(m.read("lineitem", pushdown=False).where(where))
    check(marker in plan(on), f"{what}: '{marker}' not in the plan:\n{plan(on)}")
    check(marker.split(":")[0] not in plan(off),
          f"{what}: pushed with pushdown off:\n{plan(off)}")
    for df, how in ((on, "pushed"), (off, "not pushed")):
        got = [tuple(r) for r in df.select(*key).collect()]
        check_equal(len(got), count, f"{what} ({how}): row count")
        check_equal(len(set(got)), count, f"{what} ({how}): distinct rows")
        check(set(got) <= universe, f"{what} ({how}): rows the query does not have: {got}")


@section("pushdown")
def pushdown(m):
    filtered = pushed_and_not(
        m,
        lambda df: df.where(
            ((F.col("l_quantity") < 10) & F.col("l_shipmode").isin("AIR", "RAIL"))
            | F.col("l_comment").startswith("ironic")
            | (F.col("l_shipdate") >= F.lit("1998-06-01").cast("date")))
        .select("l_orderkey", "l_linenumber", "l_quantity", "l_shipmode", "l_shipdate"),
        r"PushedFilters: \[[^\]]", "filters")
    check("WHERE" in scan_sql(filtered), "filters: no WHERE in the SQL sent:\n" + plan(filtered))
    check(filtered.count() > 0, "filters: no row matched, so nothing was compared")

    # Columns: always pushed; the server is asked for the two columns only.
    columns = m.read("lineitem").select("l_orderkey", "l_quantity")
    check("ReadSchema: struct<l_orderkey:bigint,l_quantity:decimal(15,2)>" in plan(columns),
          "columns: ReadSchema is not the two columns:\n" + plan(columns))
    check_equal(scan_sql(columns), 'SELECT "l_orderkey", "l_quantity" FROM lineitem',
                "columns: SQL sent")

    pushed_and_not(
        m,
        lambda df: df.groupBy("l_returnflag", "l_linestatus").agg(
            F.sum("l_quantity").alias("sum_qty"), F.count(F.lit(1)).alias("n"),
            F.min("l_shipdate").alias("first"), F.max("l_extendedprice").alias("max_price"),
            F.avg("l_discount").alias("avg_discount")),
        r"PushedAggregates: \[[^\]]", "aggregates")

    # A limit or offset without an order keeps whichever rows come first, which pushdown may
    # change: compare the count, and that every row is one of those the query could keep.
    some_of(m, F.col("l_orderkey") > 100, lambda df: df.limit(7), "PushedLimit: LIMIT 7", 7,
            "limit")
    some_of(m, F.col("l_orderkey") <= 3, lambda df: df.offset(2), "PushedOffset: OFFSET 2", 10,
            "offset")

    pushed_and_not(
        m,
        lambda df: df.orderBy(F.col("l_extendedprice").desc(), "l_orderkey", "l_linenumber")
        .limit(10).select("l_orderkey", "l_linenumber", "l_extendedprice"),
        "PushedTopN: ORDER BY", "top-N", ordered=True)

    # Spark 3.5 and 4.x push this as a top-N of 15 and skip the 5 themselves.
    pushed_and_not(
        m,
        lambda df: df.orderBy("l_orderkey", "l_linenumber").limit(15).offset(5)
        .select("l_orderkey", "l_linenumber", "l_quantity"),
        "PushedTopN: ORDER BY", "top-N with an offset", ordered=True)

# ---------------------------------------------------------------------------------------------
# partitions: reads split by the client, on a column's ranges or on predicates
# ---------------------------------------------------------------------------------------------

@section("partitions")
def partitions(m):
    columns = ["l_orderkey", "l_linenumber", "l_returnflag", "l_quantity"]
    whole = rows(m.read("lineitem").select(*columns))
    last_order = LINEITEM_ROWS // 4

    ranged = m.read("lineitem", partitionColumn="l_orderkey", lowerBound="1",
                    upperBound=str(last_order), numPartitions="4").select(*columns)
    check_equal(ranged.rdd.getNumPartitions(), 4, "partitionColumn: Spark partitions")
    filled = ranged.groupBy(F.spark_partition_id().alias("p")).count().collect()
    check_equal(len(filled), 4, "partitionColumn: partitions that read rows")
    check_equal(rows(ranged), whole, "partitionColumn: rows against one read")
    # Aggregates over a split read are partial per query; Spark merges them.
    check_equal(
        rows(ranged.groupBy("l_returnflag").agg(F.sum("l_quantity").alias("q"),
                                                F.count(F.lit(1)).alias("n"))),
        rows(m.read("lineitem").groupBy("l_returnflag").agg(F.sum("l_quantity").alias("q"),
                                                            F.count(F.lit(1)).alias("n"))),
        "partitionColumn: aggregate against one read")

    flags = ["l_returnflag = 'A'", "l_returnflag = 'N'", "l_returnflag = 'R'"]
    by_predicate = m.read("lineitem", predicates="[" + ", ".join(
        '"' + flag + '"' for flag in flags) + "]").select(*columns)
    check_equal(by_predicate.rdd.getNumPartitions(), 3, "predicates: Spark partitions")
    check_equal(rows(by_predicate), whole, "predicates: rows against one read")


# ---------------------------------------------------------------------------------------------
# writes: the four save modes, truncate, atomic, and every type read above written back
# ---------------------------------------------------------------------------------------------

WRITES_TABLE = "matrix_writes"


def people(m, *pairs):
    return m.spark.createDataFrame(list(pairs), "id INT, name STRING")


@section("writes")
def writes(m):
    def stored():
        return [(r["id"], r["name"]) for r in rows(m.read(WRITES_TABLE), "id")]

    m.write(people(m, (1, "a"), (2, "b"), (3, "c")), WRITES_TABLE, "errorifexists")
    check_equal(stored(), [(1, "a"), (2, "b"), (3, "c")], "errorifexists on a new table")
    try:
        m.write(people(m, (9, "z")), WRITES_TABLE, "errorifexists")
        raise AssertionError("errorifexists on an existing table wrote instead of failing")
    except AssertionError:
        raise
    except Exception as error:  # noqa: BLE001 - Py4J's or PySpark's wrapper, by version
        check("already exists" in str(error), f"errorifexists: unexpected error {error}")
    check_equal(stored(), [(1, "a"), (2, "b"), (3, "c")], "after a refused errorifexists")

    m.write(people(m, (4, "d"), (5, "e")), WRITES_TABLE, "append")
    check_equal([i for i, _ in stored()], [1, 2, 3, 4, 5], "append")

    m.write(people(m, (6, "f")), WRITES_TABLE, "ignore")
    check_equal([i for i, _ in stored()], [1, 2, 3, 4, 5], "ignore on an existing table")
    m.write(people(m, (7, "g")), WRITES_TABLE + "_ignored", "ignore")
    check_equal(rows(m.read(WRITES_TABLE + "_ignored")), [{"id": 7, "name": "g"}],
                "ignore on a new table")

    m.write(people(m, (10, "x"), (11, "y")), WRITES_TABLE, "overwrite")
    check_equal(stored(), [(10, "x"), (11, "y")], "overwrite")
    m.write(people(m, (20, "t")), WRITES_TABLE, "overwrite", truncate="true")
    check_equal(stored(), [(20, "t")], "overwrite with truncate")
    m.write(people(m, (21, "u"), (22, "v")).repartition(2), WRITES_TABLE, "append",
            atomic="true")
    check_equal(stored(), [(20, "t"), (21, "u"), (22, "v")], "atomic append")

    # Every type family the server sent, written to a new table and read back the same; but
    # INTERVAL (month, day and time apart), which Spark refuses in a table's schema.
    m.write(m.read("matrix_types").drop("c_interval"), "matrix_writes_types", "overwrite")
    written = m.read("matrix_writes_types")
    check_equal(jvm_schema(written), TYPES_SCHEMA.replace("c_interval:interval,", ""),
                "Spark schema of matrix_types written back")
    expected = [{k: v for k, v in row.items() if k != "c_interval"} for row in EXPECTED_TYPES]
    check_rows_by_column(rows(written, "id"), expected, "matrix_types written back")


# ---------------------------------------------------------------------------------------------
# catalog: the server as a Spark SQL catalog (io.flightsql.spark.FlightSqlCatalog)
# ---------------------------------------------------------------------------------------------

CATALOG = "flight"
NS = CATALOG + ".memory.main"


@section("catalog")
def catalog(m):
    m.spark.conf.set("spark.sql.catalog." + CATALOG, "io.flightsql.spark.FlightSqlCatalog")
    m.spark.conf.set("spark.sql.catalog." + CATALOG + ".uri", m.uri)
    sql = m.spark.sql

    namespaces = sorted(row[0] for row in sql(f"SHOW NAMESPACES IN {CATALOG}").collect())
    check("memory" in namespaces, f"SHOW NAMESPACES: {namespaces}")
    tables = {row["tableName"] for row in sql(f"SHOW TABLES IN {NS}").collect()}
    check({"lineitem", "matrix_types"} <= tables, f"SHOW TABLES: {sorted(tables)}")
    described = {row["col_name"]: row["data_type"]
                 for row in sql(f"DESCRIBE TABLE {NS}.matrix_types").collect()}
    check_equal((described.get("id"), described.get("c_varchar"), described.get("c_dec_short")),
                ("int", "string", "decimal(10,2)"), "DESCRIBE")

    # Pushdown through the catalog: the same answer as Spark's own over an unpushed read.
    pushed = sql(f"SELECT l_returnflag, COUNT(*) AS n FROM {NS}.lineitem "
                 "WHERE l_quantity > 10 GROUP BY l_returnflag")
    check("PushedAggregates" in plan(pushed) or "PushedAggregation" in plan(pushed),
          "the catalog's aggregate was not pushed:\n" + plan(pushed))
    unpushed = (m.read("lineitem", pushdown=False).where(F.col("l_quantity") > 10)
                .groupBy("l_returnflag").agg(F.count(F.lit(1)).alias("n")))
    check_equal(rows(pushed), rows(unpushed), "aggregate through the catalog")

    table = NS + ".matrix_catalog"
    sql(f"CREATE TABLE {table} (id INT, name STRING)")
    sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b')")
    check_equal(rows(sql(f"SELECT * FROM {table}"), "id"),
                [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}], "INSERT INTO")
    sql(f"INSERT OVERWRITE {table} VALUES (3, 'c')")
    check_equal(rows(sql(f"SELECT * FROM {table}"), "id"), [{"id": 3, "name": "c"}],
                "INSERT OVERWRITE")
    sql(f"CREATE TABLE {table}_ctas AS SELECT id * 10 AS id, name FROM {table}")
    check_equal(rows(sql(f"SELECT * FROM {table}_ctas"), "id"), [{"id": 30, "name": "c"}],
                "CREATE TABLE AS SELECT")
    sql(f"DROP TABLE {table}_ctas")
    tables = {row["tableName"] for row in sql(f"SHOW TABLES IN {NS}").collect()}
    check("matrix_catalog_ctas" not in tables and "matrix_catalog" in tables,
          f"after DROP TABLE: {sorted(tables)}")


# ---------------------------------------------------------------------------------------------
# compression: streams the server compresses with ZSTD, and uploads with option compression; ZSTD
# runs on this Spark's own zstd-jni and LZ4 uploads on its lz4-java, which the jar does not bundle
# ---------------------------------------------------------------------------------------------

COMPRESSED_URI = None  # set by main() from --compressed-uri


@section("compression")
def compression(m):
    if COMPRESSED_URI is None:
        raise Skip("no --compressed-uri: no server that compresses its streams")
    compressed = m.read("matrix_types", uri=COMPRESSED_URI)
    check_equal(jvm_schema(compressed), TYPES_SCHEMA, "Spark schema of a ZSTD stream")
    check_rows_by_column(types_rows(compressed), EXPECTED_TYPES, "matrix_types read from ZSTD")
    lineitem = m.read("lineitem", uri=COMPRESSED_URI, pushDownAggregate="false")
    check_equal(rows(lineitem.groupBy("l_returnflag").count()),
                rows(m.read("lineitem", pushDownAggregate="false")
                     .groupBy("l_returnflag").count()),
                "lineitem read from ZSTD, counted by return flag")

    expected = [{k: v for k, v in row.items() if k != "c_interval"} for row in EXPECTED_TYPES]
    for codec in ("zstd", "lz4"):
        table = "matrix_compression_" + codec
        m.write(m.read("matrix_types").drop("c_interval"), table, "overwrite",
                compression=codec)
        check_rows_by_column(rows(m.read(table), "id"), expected,
                             f"matrix_types written with compression={codec}")


# ---------------------------------------------------------------------------------------------
# time: Spark 4.1's TIME type, read and written
# ---------------------------------------------------------------------------------------------

@section("time")
def time_type(m):
    if m.version < (4, 1):
        raise Skip(f"Spark {m.spark.version} has no TIME type (4.1 and later)")
    m.spark.conf.set("spark.sql.timeType.enabled", "true")
    times = m.read("matrix_types").select("id", "c_time")
    check_equal(jvm_schema(times), "struct<id:int,c_time:time(6)>", "TIME column's type")
    expected = [{"id": 1, "c_time": datetime.time(12, 34, 56, 789012)},
                {"id": 2, "c_time": datetime.time(0, 0)}, {"id": 3, "c_time": None}]
    check_equal(rows(times, "id"), expected, "TIME values")
    m.write(times, "matrix_time_written", "overwrite")
    check_equal(rows(m.read("matrix_time_written"), "id"), expected, "TIME written back")


# ---------------------------------------------------------------------------------------------
# optimizer: statistics, runtime filters, joins (pushed on Spark 4.1 and later) and samples
# ---------------------------------------------------------------------------------------------

JOIN_PUSHDOWN = "spark.sql.optimizer.datasourceV2JoinPushdown"


def explained(df, mode):
    """What df.explain(mode=...) prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        df.explain(mode=mode)
    return out.getvalue()


@section("optimizer")
def optimizer(m):
    columns = ("l_orderkey", "l_linenumber", "l_quantity")

    def small(**options):
        return m.read("matrix_types", **options).select("id", "c_varchar", "c_bool")

    # Statistics: the server's row counts make the 3-row table the broadcast side, unhinted. Its
    # size is 3 rows of Spark's estimate, 8 + 4 (int) + 20 (string) + 1 (boolean) bytes each;
    # Spark 4.3 shows no rowCount in EXPLAIN COST, the others do.
    lineitem = m.read("lineitem").select(*columns)
    joined = lineitem.join(small(), lineitem.l_linenumber == F.col("id"))
    cost = explained(joined, "cost")
    check("flightsql:matrix_types, Statistics(sizeInBytes=99.0 B" in cost,
          "statistics: not 3 rows in EXPLAIN COST:\n" + cost)
    check("BroadcastHashJoin" in plan(joined), "statistics: no broadcast join:\n" + plan(joined))

    # Runtime filter: the dimension keeps its filter (on another column than the key) in Spark's
    # plan; the fact read is filtered by the keys it found, in its SQL, with Spark's own answer.
    # (Spark takes a comparison for a selective filter, a bare boolean column not.)
    picked = (m.read("matrix_types", keepFiltersInSpark="true").where(F.col("c_int") > 0)
              .select("id"))
    fact = m.read("lineitem").select(*columns)
    star = fact.join(picked, fact.l_linenumber == picked.id).select(*columns)
    whole = m.read("lineitem", pushDownRuntimeFilter="false").select(*columns)
    star_rows = sorted(tuple(r) for r in star.collect())
    check_equal(star_rows, sorted(tuple(r) for r in whole.join(
        picked, whole.l_linenumber == picked.id).select(*columns).collect()),
        "runtime filter: rows")
    check(len(star_rows) > 0, "runtime filter: no row joined")
    check('"l_linenumber" IN (1)' in plan(star),
          "runtime filter: not in the fact read's SQL:\n" + plan(star))

    # Joins on both sides of filters, inner, left and right: on the server from Spark 4.1 on,
    # Spark's own rows everywhere.
    m.spark.conf.set(JOIN_PUSHDOWN, "true")
    try:
        for how in ("inner", "left", "right"):
            def join(**options):
                left = (m.read("lineitem", **options).where(F.col("l_quantity") < 10)
                        .select(*columns))
                right = small(**options).where(F.col("c_varchar").isNotNull())
                return left.join(right, left.l_linenumber == right.id, how)
            pushed = join()
            check_equal(rows(pushed), rows(join(pushDownJoin="false")), f"{how} join: rows")
            if m.version >= (4, 1):
                check("PushedJoin: [" in plan(pushed), f"{how} join not pushed:\n{plan(pushed)}")
            else:
                check("PushedJoin" not in plan(pushed), f"{how} join pushed:\n{plan(pushed)}")
    finally:
        m.spark.conf.unset(JOIN_PUSHDOWN)

    # Samples: the server's Bernoulli sample of the table; about half the rows (14 sd wide).
    sampled = m.read("lineitem").sample(0.5, 3)
    check("PushedSample: TABLESAMPLE bernoulli(50 PERCENT)" in plan(sampled),
          "sample not pushed:\n" + plan(sampled))
    count = sampled.count()
    check(abs(count - LINEITEM_ROWS / 2) <= 500, f"sample of {LINEITEM_ROWS} rows: {count} rows")


# ---------------------------------------------------------------------------------------------
# streaming: a streaming copy of lineitem, from a flightsql source to a flightsql sink
# ---------------------------------------------------------------------------------------------

STREAMING_COPY = "matrix_streaming_copy"


@section("streaming")
def streaming(m):
    import tempfile

    checkpoint = tempfile.mkdtemp(prefix="flightsql-matrix-streaming-")

    def copy():
        # l_orderkey repeats (up to seven lines an order): batches never split an order's lines.
        source = (m.spark.readStream.format("flightsql").option("uri", m.uri)
                  .option("dbtable", "lineitem").option("offsetColumn", "l_orderkey")
                  .option("maxRowsPerTrigger", "2000").load())
        query = (source.writeStream.format("flightsql").option("uri", m.uri)
                 .option("dbtable", STREAMING_COPY).option("checkpointLocation", checkpoint)
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]

    batches = copy()
    check(len(batches) >= 2 and all(rows <= 2000 for rows in batches),
          f"micro-batches of at most 2000 rows: {batches}")
    check_equal(sum(batches), LINEITEM_ROWS, "rows read by the stream")
    copied, source = m.read(STREAMING_COPY), m.read("lineitem")
    check_equal(copied.count(), LINEITEM_ROWS, "rows in the copy")
    check_equal(source.exceptAll(copied).count(), 0, "lineitem rows missing from the copy")
    check_equal(copied.exceptAll(source).count(), 0, "rows of the copy not in lineitem, or twice")
    check_equal(copy(), [], "micro-batches of a second run, with no new row")


def main():
    global LINEITEM_ROWS, COMPRESSED_URI
    parser = argparse.ArgumentParser(description="spark-flightsql on this Spark")
    parser.add_argument("--uri", required=True, help="the Flight SQL server")
    parser.add_argument("--lineitem-rows", type=int, required=True,
                        help="rows of the server's lineitem table")
    parser.add_argument("--compressed-uri",
                        help="a server with the same data whose streams are ZSTD-compressed")
    parser.add_argument("--only", nargs="*", help="run only these sections")
    args = parser.parse_args()
    LINEITEM_ROWS = args.lineitem_rows
    COMPRESSED_URI = args.compressed_uri

    spark = (SparkSession.builder.appName("flightsql-matrix")
             .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    spark.sparkContext.setLogLevel("WARN")
    m = Matrix(spark, args.uri)
    print(f"MATRIX spark {spark.version}", flush=True)
    print(f"MATRIX runtime java {spark._jvm.java.lang.System.getProperty('java.version')}"
          f" scala {spark._jvm.scala.util.Properties.versionNumberString()}", flush=True)
    failed = 0
    for name, check_section in SECTIONS:
        if args.only and name not in args.only:
            continue
        started = time.monotonic()
        try:
            check_section(m)
            print(f"MATRIX {name} PASSED in {time.monotonic() - started:.1f} s", flush=True)
        except Skip as skip:
            print(f"MATRIX {name} SKIPPED {skip}", flush=True)
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next runs
            failed += 1
            traceback.print_exc()
            first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
            print(f"MATRIX {name} FAILED {type(error).__name__}: {first_line}", flush=True)
        finally:
            for conf in ("spark.sql.timeType.enabled",):
                spark.conf.unset(conf)
    spark.stop()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
