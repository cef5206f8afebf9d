"""Read a TPC-H-style lineitem table from a Flight SQL server into Spark with spark-flightsql.

    spark-submit --jars spark-flightsql-<version>.jar quickstart.py --uri grpc://127.0.0.1:31337
"""
import argparse
import os

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

parser = argparse.ArgumentParser(description="spark-flightsql quick start")
parser.add_argument("--uri", default=os.environ.get("FLIGHTSQL_URI", "grpc://127.0.0.1:31337"),
                    help="Flight SQL server (default: $FLIGHTSQL_URI, else grpc://127.0.0.1:31337)")
args = parser.parse_args()

spark = SparkSession.builder.appName("flightsql-quickstart").getOrCreate()

lineitem = (spark.read.format("flightsql")
            .option("uri", args.uri)
            .option("dbtable", "lineitem")
            .load())
print(f"lineitem rows: {lineitem.count()}")

(lineitem.groupBy("l_returnflag", "l_linestatus")
    .agg(F.sum("l_quantity").alias("sum_qty"), F.count("*").alias("count_order"))
    .orderBy("l_returnflag", "l_linestatus")
    .show())

spark.stop()
