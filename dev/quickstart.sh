#!/usr/bin/env bash
# The quick start: builds the connector and the embedded DuckDB Flight SQL server, starts the
# server in-process on 127.0.0.1 and a free port, and reads from it with Spark through the
# connector. Needs Java 17+ and Maven 3.8+.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the quick start runs: not the wheel, nor the javadoc of a release.
mvn -B -ntp -q install -DskipTests -Dmaven.javadoc.skip=true -pl examples/spark-apps -am
exec mvn -B -ntp -q -pl examples/spark-apps exec:exec@quickstart "$@"
