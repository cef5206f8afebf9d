#!/usr/bin/env bash
# Runs every test: unit and component tests of each module, the shading check of the connector
# jar, and the integration tests of the shaded jar against real Flight SQL servers (the embedded
# DuckDB server, Arrow's Java Derby example, the arrow-go SQLite example, a PySpark spark-submit).
#
# Needs Java 17+, Maven 3.8+, Python 3 and Go on the PATH. The Go server and the PySpark virtualenv
# are installed on first use into ~/.cache/spark-flightsql and reused afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
exec mvn -B -ntp verify "$@"
