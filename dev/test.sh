#!/usr/bin/env bash
# Runs every test: unit and component tests of each module, the shading check of the connector
# jar, the connector compiled against Spark 3.5 (compat/spark-3.5), and the integration tests of the
# shaded jar against real Flight SQL servers (the embedded DuckDB server, Arrow's Java Derby example,
# the arrow-go SQLite example, Sail and Deephaven from pip) and under pip PySpark: spark-submit under every supported Spark
# release (SparkVersionMatrixIT), the Python quick start, the notebook, and a standalone cluster.
#
# Needs Java 17+, Maven 3.8+, Python 3 and Go on the PATH. The Go server and the Python virtualenvs
# (PySpark, Sail, Deephaven) are installed on first use into ~/.cache/spark-flightsql and reused
# afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
exec mvn -B -ntp verify "$@"
