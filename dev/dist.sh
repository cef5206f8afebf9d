#!/usr/bin/env bash
# Builds what a release publishes, with one command, and gathers it in target/dist/: the connector's
# shaded jar with its sources and javadoc jars and its (dependency-reduced) POM, the parent POM, and
# the spark-flightsql wheel that carries the same jar; SHA256SUMS lists them. See docs/releasing.md.
# Needs Java 17+, Maven 3.8+ and Python 3.9+.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v python3 > /dev/null 2>&1; then
  echo "dist.sh builds the wheel too, and needs python3 (Python 3.9+ with its venv module)" >&2
  exit 1
fi
mvn -B -ntp -q -DskipTests package "$@"
# The project's version, from the root POM (its first two-space-indented <version>).
version=$(sed -n 's|^  <version>\(.*\)</version>$|\1|p' pom.xml | head -n 1)
dist=target/dist
rm -rf "$dist"
mkdir -p "$dist"
cp "connector/target/spark-flightsql-$version.jar" \
  "connector/target/spark-flightsql-$version-sources.jar" \
  "connector/target/spark-flightsql-$version-javadoc.jar" "$dist/"
cp connector/dependency-reduced-pom.xml "$dist/spark-flightsql-$version.pom"
cp pom.xml "$dist/spark-flightsql-parent-$version.pom"
cp python/target/dist/spark_flightsql-*.whl "$dist/"
(cd "$dist" && sha256sum -- * > SHA256SUMS)
echo "Release artifacts of $version in $dist:"
ls -l "$dist"
