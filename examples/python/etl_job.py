"""An ETL job over a Flight SQL server: read two tables, join, aggregate, write one atomically.

    python etl_job.py --master spark://<master>:7077 --uri grpc://<server>:31337 \\
        [--target carrier_revenue]

spark_flightsql.configure() gives Spark the connector's jar (from the spark-flightsql wheel), and
Spark ships it to every executor. With spark-submit instead, give the jar on its command line:
spark-submit --master ... --jars "$(python -m spark_flightsql --jar)" etl_job.py --uri ...

It reads lineitem (split into --partitions queries on l_orderkey, so that every executor core
reads a share) and shipmodes, joins them on the ship mode, sums the revenue per carrier and return
flag, and replaces the table --target with the result in one transaction on the server
(atomic=true): readers of the table see the old rows or the new ones, never a mix, and a failed
or retried task leaves nothing behind. See examples/python/README.md for running it on a cluster.
"""
import argparse
import os

import spark_flightsql
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

parser = argparse.ArgumentParser(description="spark-flightsql ETL job")
parser.add_argument("--uri", default=os.environ.get("FLIGHTSQL_URI", "grpc://127.0.0.1:31337"),
                    help="Flight SQL server (default: $FLIGHTSQL_URI, else grpc://127.0.0.1:31337)")
parser.add_argument("--target", default="carrier_revenue", help="table to write")
parser.add_argument("--partitions", type=int, default=4, help="queries to split lineitem into")
parser.add_argument("--master", help="the cluster's master URL (default: spark-submit's, else local)")
args = parser.parse_args()

builder = SparkSession.builder.appName("flightsql-etl")
if args.master:
    builder = builder.master(args.master)
spark = spark_flightsql.configure(builder).getOrCreate()


def flightsql(table, **options):
    reader = spark.read.format("flightsql").option("uri", args.uri).option("dbtable", table)
    for name, value in options.items():
        reader = reader.option(name, str(value))
    return reader.load()


# The bounds only set the stride of the split; rows outside them are read too.
bounds = flightsql("lineitem").agg(F.min("l_orderkey"), F.max("l_orderkey")).first()
lineitem = flightsql("lineitem", partitionColumn="l_orderkey", lowerBound=bounds[0],
                     upperBound=bounds[1], numPartitions=args.partitions)
shipmodes = flightsql("shipmodes")

revenue = (lineitem
           .where(F.col("l_shipdate") < F.lit("1998-09-01").cast("date"))
           .join(F.broadcast(shipmodes), "l_shipmode")
           .groupBy("carrier", "l_returnflag")
           .agg(F.sum(F.col("l_extendedprice") * (1 - F.col("l_discount"))).alias("revenue"),
                F.count(F.lit(1)).alias("line_count"),
                F.max("days").alias("max_days"))
           .orderBy("carrier", "l_returnflag"))

(revenue.write.format("flightsql")
 .option("uri", args.uri)
 .option("dbtable", args.target)
 .option("atomic", "true")
 .mode("overwrite")
 .save())

print(f"wrote {revenue.count()} rows to {args.target}")
spark.stop()
