"""spark-flightsql from a Spark Connect client: reads, writes, the catalog and the errors users see.

    python connect_checks.py --uri grpc://127.0.0.1:31337 --remote local --prefix local
    python connect_checks.py --uri grpc://127.0.0.1:31337 --remote sc://127.0.0.1:15002 ...

With --remote local, PySpark starts Spark Connect's server in a JVM of this process, and the
session's builder goes through spark_flightsql.configure() (the wheel must be installed); with an
sc:// URL the server is another process, started with the jar, and the client is any PySpark
Connect client (pyspark-client has no JVM at all). SparkConnectIT runs both against one embedded
DuckDB server. Each check prints one line that the test reads:

    CONNECT <section> PASSED
    CONNECT <section> FAILED <what>

and the script exits with 1 when any failed. Tables are named <prefix>_..., so that two clients
can share the server.
"""
import argparse
import contextlib
import io
import sys
import time
import traceback

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

SECTIONS = []


def section(name):
    def register(check):
        SECTIONS.append((name, check))
        return check

    return register


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def check_equal(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}:\n  expected {expected!r}\n  got      {actual!r}")


class Client:
    def __init__(self, spark, uri, prefix):
        self.spark = spark
        self.uri = uri
        self.prefix = prefix

    def read(self, table, **options):
        reader = self.spark.read.format("flightsql").option("uri", self.uri).option("dbtable", table)
        for name, value in options.items():
            reader = reader.option(name, value)
        return reader.load()

    def write(self, df, table, mode, **options):
        writer = df.write.format("flightsql").option("uri", self.uri).option("dbtable", table)
        for name, value in options.items():
            writer = writer.option(name, value)
        writer.mode(mode).save()

    def table(self, name):
        return f"{self.prefix}_{name}"


def plan(df):
    """What df.explain() prints: the server's plan, with the scan's description."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        df.explain()
    return out.getvalue()


def rows(df, *order):
    return [tuple(row) for row in df.orderBy(*(order or df.columns)).collect()]


def failure(action):
    """The text of the error that action raises, for checks on what the user reads."""
    try:
        action()
    except Exception as error:  # noqa: BLE001 - whatever the client raises, its text is checked
        return f"{type(error).__name__}: {error}"
    raise AssertionError("no error was raised")


@section("read")
def read(c):
    def query(df):
        return (df.where((F.col("l_quantity") < 20) & F.col("l_shipmode").isin("AIR", "RAIL"))
                .groupBy("l_returnflag").agg(F.sum("l_quantity").alias("q"),
                                             F.count(F.lit(1)).alias("n")))

    pushed = query(c.read("lineitem"))
    unpushed = query(c.read("lineitem", pushDownPredicate="false", pushDownAggregate="false"))
    shown = plan(pushed)
    check("PushedAggregates: [SUM(l_quantity), COUNT(*)]" in shown,
          "the aggregate was not pushed:\n" + shown)
    check("PushedFilters: [" in shown and "l_quantity" in shown,
          "the filter was not pushed:\n" + shown)
    check("PushedAggregates: []" in plan(unpushed) or "PushedAggregates" not in plan(unpushed),
          "pushed with pushdown off:\n" + plan(unpushed))
    expected = rows(unpushed, "l_returnflag")
    check(len(expected) > 0, "no row matched, so nothing was compared")
    check_equal(rows(pushed, "l_returnflag"), expected, "pushed aggregate against Spark's own")


@section("writes")
def writes(c):
    target = c.table("writes")
    first = c.spark.createDataFrame([(1, "a"), (2, "b")], "id INT, name STRING")
    c.write(first, target, "overwrite")
    c.write(c.spark.createDataFrame([(3, "c")], "id INT, name STRING"), target, "append")
    check_equal(rows(c.read(target), "id"), [(1, "a"), (2, "b"), (3, "c")], "overwrite, append")
    c.write(c.spark.createDataFrame([(9, "z")], "id INT, name STRING"), target, "ignore")
    check_equal(rows(c.read(target), "id"), [(1, "a"), (2, "b"), (3, "c")], "ignore")
    # Spark Connect's Python client takes "error", not its synonym "errorifexists".
    refused = failure(lambda: c.write(first, target, "error"))
    check(target in refused and "already exists" in refused,
          "errorifexists on an existing table: " + refused)
    fresh = c.table("writes_new")
    c.write(first, fresh, "error")
    check_equal(rows(c.read(fresh), "id"), [(1, "a"), (2, "b")], "errorifexists, new table")
    c.write(c.spark.createDataFrame([(7, "x")], "id INT, name STRING"), target, "overwrite")
    check_equal(rows(c.read(target), "id"), [(7, "x")], "overwrite")


@section("catalog")
def catalog(c):
    name = "flight_" + c.prefix
    c.spark.conf.set(f"spark.sql.catalog.{name}", "io.flightsql.spark.FlightSqlCatalog")
    c.spark.conf.set(f"spark.sql.catalog.{name}.uri", c.uri)
    namespace = f"{name}.memory.main"
    tables = {row["tableName"] for row in c.spark.sql(f"SHOW TABLES IN {namespace}").collect()}
    check("lineitem" in tables, f"SHOW TABLES IN {namespace}: {sorted(tables)}")
    counted = c.spark.sql(
        f"SELECT l_returnflag, count(*) AS n FROM {namespace}.lineitem GROUP BY l_returnflag")
    check_equal(rows(counted), rows(c.read("lineitem").groupBy("l_returnflag")
                                    .agg(F.count(F.lit(1)).alias("n"))), "SELECT")
    ctas = f"{namespace}.{c.table('ctas')}"
    c.spark.sql(f"DROP TABLE IF EXISTS {ctas}")
    c.spark.sql(f"CREATE TABLE {ctas} AS SELECT DISTINCT l_shipmode FROM {namespace}.lineitem")
    check_equal(c.spark.table(ctas).count(), 7, "CTAS rows")
    tables = {row["tableName"] for row in c.spark.sql(f"SHOW TABLES IN {namespace}").collect()}
    check(c.table("ctas") in tables, f"the CTAS table in SHOW TABLES: {sorted(tables)}")


@section("errors")
def errors(c):
    bad_option = failure(lambda: c.read("lineitem", queryTimeout="soon").count())
    check("Invalid value 'soon' for option 'queryTimeout'" in bad_option,
          "a bad option value: " + bad_option)
    missing = failure(lambda: c.read("no_such_table").count())
    check("no_such_table" in missing, "a missing table: " + missing)
    # Through the catalog (set by the catalog section), Spark's own error for a missing table.
    name = "flight_" + c.prefix
    missing_in_catalog = failure(
        lambda: c.spark.sql(f"SELECT * FROM {name}.memory.main.no_such_table").collect())
    check("TABLE_OR_VIEW_NOT_FOUND" in missing_in_catalog
          and "no_such_table" in missing_in_catalog,
          "a missing table of the catalog: " + missing_in_catalog)
    for what, text in (("option", bad_option), ("table", missing),
                       ("catalog-table", missing_in_catalog)):
        print(f"CONNECT error-text {what} " + " ".join(text.split())[:300], flush=True)


def session(remote):
    builder = SparkSession.builder.remote(remote).appName("flightsql-connect")
    if remote.startswith("local"):
        import spark_flightsql

        builder = spark_flightsql.configure(builder.config("spark.ui.enabled", "false"))
    return builder.getOrCreate()


def main():
    parser = argparse.ArgumentParser(description="spark-flightsql from a Spark Connect client")
    parser.add_argument("--uri", required=True, help="the Flight SQL server")
    parser.add_argument("--remote", required=True, help="local, or the server's sc:// URL")
    parser.add_argument("--prefix", required=True, help="of the tables this run writes")
    args = parser.parse_args()
    spark = session(args.remote)
    import pyspark

    print(f"CONNECT client pyspark {pyspark.__version__} server spark {spark.version}"
          f" remote {args.remote}", flush=True)
    client = Client(spark, args.uri, args.prefix)
    failed = 0
    for name, run in SECTIONS:
        started = time.monotonic()
        try:
            run(client)
            print(f"CONNECT {name} PASSED in {time.monotonic() - started:.1f} s", flush=True)
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next runs
            failed += 1
            traceback.print_exc()
            first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
            print(f"CONNECT {name} FAILED {type(error).__name__}: {first_line}", flush=True)
    spark.stop()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
