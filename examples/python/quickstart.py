"""Read a TPC-H-style lineitem table from a Flight SQL server into Spark with spark-flightsql.

With the spark-flightsql wheel installed beside PySpark, run it with Python itself:

    python quickstart.py --uri grpc://127.0.0.1:31337

or with spark-submit, whose JVM starts first and so needs the jar on its command line:

    spark-submit --jars "$(python -m spark_flightsql --jar)" quickstart.py --uri ...
"""
import argparse
import os

import spark_flightsql
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

parser = argparse.ArgumentParser(description="spark-flightsql quick start")
parser.add_argument("--uri", default=os.environ.get("FLIGHTSQL_URI", "grpc://127.0.0.1:31337"),
                    help="Flight SQL server (default: $FLIGHTSQL_URI, else grpc://127.0.0.1:31337)")
args = parser.parse_args()

# configure() puts the connector's jar on spark.jars before Spark's JVM starts.
spark = spark_flightsql.configure(SparkSession.builder.appName("flightsql-quickstart")).getOrCreate()

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
