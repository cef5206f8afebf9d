#!/usr/bin/env bash
# Fails when a class in the shaded connector jar lives outside io/flightsql/spark/: every bundled
# third-party class (Arrow, Flight, gRPC, Netty, protobuf, Guava, flatbuffers, Jackson, ...) must be
# relocated under io/flightsql/spark/shaded/, or it could clash with the copies Spark ships.
# Also fails on native libraries, which cannot be relocated and must not be bundled.
set -euo pipefail
jar_file="${1:?usage: verify-shading.sh <jar>}"
[[ -f "$jar_file" ]] || { echo "verify-shading: no such jar: $jar_file" >&2; exit 1; }
jar_file="$(cd "$(dirname "$jar_file")" && pwd)/$(basename "$jar_file")"

listing=$(jar tf "$jar_file")
escaped=$(grep -E '\.class$' <<<"$listing" | grep -vE '^(META-INF/versions/[0-9]+/)?io/flightsql/spark/' || true)
native=$(grep -E '\.(so|dll|dylib|jnilib)$' <<<"$listing" || true)
services=$(grep -E '^META-INF/services/' <<<"$listing" | grep -vE '^META-INF/services/(io\.flightsql\.spark\.|org\.apache\.spark\.sql\.sources\.DataSourceRegister$)' | grep -v '/$' || true)

# The connector's own classes must stay Java 11 bytecode (class file major version 55) so the jar
# runs on Spark 3.5 clusters that still use Java 11.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && jar xf "$jar_file" io/flightsql/spark/FlightSqlDataSource.class)
major=$(od -An -j7 -N1 -tu1 "$tmp/io/flightsql/spark/FlightSqlDataSource.class" | tr -d ' ')

status=0
if [[ "$major" != "55" ]]; then
  echo "verify-shading: io/flightsql/spark/FlightSqlDataSource.class has class file version $major, expected 55 (Java 11)" >&2
  status=1
fi
if [[ -n "$escaped" ]]; then
  echo "verify-shading: $(wc -l <<<"$escaped") class(es) escaped relocation in $jar_file, e.g.:" >&2
  head -20 <<<"$escaped" >&2
  status=1
fi
if [[ -n "$native" ]]; then
  echo "verify-shading: native libraries bundled in $jar_file:" >&2
  echo "$native" >&2
  status=1
fi
if [[ -n "$services" ]]; then
  echo "verify-shading: service files for unrelocated interfaces in $jar_file:" >&2
  echo "$services" >&2
  status=1
fi
if [[ $status -eq 0 ]]; then
  echo "verify-shading: OK, $(grep -cE '\.class$' <<<"$listing") classes, all under io/flightsql/spark/"
fi
exit $status
