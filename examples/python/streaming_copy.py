"""Keep one Flight SQL table fed from another with Structured Streaming and spark-flightsql.

    pip install spark_flightsql-<version>-py3-none-any.whl pyspark
    python streaming_copy.py \\
        --uri grpc://127.0.0.1:31337 --source lineitem --offset-column l_orderkey \\
        --sink lineitem_copy --checkpoint /tmp/lineitem_copy

(or spark-submit --jars "$(python -m spark_flightsql --jar)" streaming_copy.py ...)

Reads the rows the source gains, by a column whose value only grows (a sequence, an ingestion
timestamp), at most --max-rows-per-trigger at a time, and appends them to the sink: exactly once
where the sink's server has transactions (docs/streaming.md). Stop it with Ctrl-C and start it
again with the same --checkpoint: it resumes where its last committed micro-batch ended. With
--available-now it copies what there is now and ends, which a scheduled job does.
"""
import argparse
import os

import spark_flightsql
from pyspark.sql import SparkSession

parser = argparse.ArgumentParser(description="spark-flightsql streaming copy")
parser.add_argument("--uri", default=os.environ.get("FLIGHTSQL_URI", "grpc://127.0.0.1:31337"),
                    help="Flight SQL server (default: $FLIGHTSQL_URI, else grpc://127.0.0.1:31337)")
parser.add_argument("--sink-uri", help="the sink's server, if not --uri")
parser.add_argument("--source", default="lineitem", help="the table to read")
parser.add_argument("--offset-column", default="l_orderkey",
                    help="a column of the source whose value only grows")
parser.add_argument("--sink", default="lineitem_copy", help="the table to append to")
parser.add_argument("--checkpoint", default="/tmp/flightsql-streaming-copy",
                    help="the query's checkpoint directory")
parser.add_argument("--max-rows-per-trigger", type=int, default=100_000,
                    help="the most rows a micro-batch reads")
parser.add_argument("--available-now", action="store_true",
                    help="copy what there is now, then stop")
args = parser.parse_args()

# configure() puts the connector's jar on spark.jars before Spark's JVM starts.
spark = spark_flightsql.configure(
    SparkSession.builder.appName("flightsql-streaming-copy")).getOrCreate()

rows = (spark.readStream.format("flightsql")
        .option("uri", args.uri)
        .option("dbtable", args.source)
        .option("offsetColumn", args.offset_column)
        .option("maxRowsPerTrigger", str(args.max_rows_per_trigger))
        .load())

writer = (rows.writeStream.format("flightsql")
          .option("uri", args.sink_uri or args.uri)
          .option("dbtable", args.sink)
          .option("checkpointLocation", args.checkpoint))
writer = writer.trigger(availableNow=True) if args.available_now else writer.trigger(
    processingTime="5 seconds")
query = writer.start()
query.awaitTermination()

for progress in query.recentProgress:
    if progress["numInputRows"]:
        print(f"batch {progress['batchId']}: {progress['numInputRows']} rows, "
              f"{progress['processedRowsPerSecond']:.0f} rows/s")
spark.stop()
