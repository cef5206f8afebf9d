#!/usr/bin/env bash
# Fails when a class in the shaded connector jar lives outside io/flightsql/spark/: every bundled
# third-party class (Arrow, Flight, gRPC, Netty, protobuf, Guava, flatbuffers, Jackson, ...) must be
# relocated under io/flightsql/spark/shaded/, or it could clash with the copies Spark ships.
# Also fails on native libraries, which cannot be relocated and must not be bundled, and on any use
# of Spark's zstd-jni or lz4-java beyond the members that every supported Spark's copy has.
set -euo pipefail
export LC_ALL=C
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
(cd "$tmp" && jar xf "$jar_file" io/flightsql/spark/)
major=$(od -An -j7 -N1 -tu1 "$tmp/io/flightsql/spark/FlightSqlDataSource.class" | tr -d ' ')

# Compression runs on two libraries that Spark ships, unbundled and unrelocated (their JNI symbols
# follow their class names): zstd-jni (com.github.luben) and lz4-java (net.jpountz). Arrow's codecs
# and the connector may use only these members of them, which every Spark the jar supports has:
# zstd-jni 1.5.5-4 (Spark 3.5), 1.5.6-9 (4.0), 1.5.7-6 (4.1), 1.5.7-7 (4.2); lz4-java 1.8.0 (3.5 to
# 4.1) and 1.11.0 (4.2).
spark_allowed='com/github/luben/zstd/Zstd
com/github/luben/zstd/Zstd.compressBound:(J)J
com/github/luben/zstd/Zstd.compressUnsafe:(JJJJI)J
com/github/luben/zstd/Zstd.decompressUnsafe:(JJJJ)J
com/github/luben/zstd/Zstd.getErrorName:(J)Ljava/lang/String;
com/github/luben/zstd/Zstd.isError:(J)Z
net/jpountz/lz4/LZ4FrameOutputStream
net/jpountz/lz4/LZ4FrameOutputStream$BLOCKSIZE
net/jpountz/lz4/LZ4FrameOutputStream$BLOCKSIZE.SIZE_4MB:Lnet/jpountz/lz4/LZ4FrameOutputStream$BLOCKSIZE;
net/jpountz/lz4/LZ4FrameOutputStream."<init>":(Ljava/io/OutputStream;Lnet/jpountz/lz4/LZ4FrameOutputStream$BLOCKSIZE;)V
net/jpountz/lz4/LZ4FrameOutputStream.close:()V
net/jpountz/lz4/LZ4FrameOutputStream.write:([BII)V'
# Netty's own ZSTD and LZ4 handlers name these libraries too, but gRPC never installs them (its
# message compression is its own), so they are left out.
spark_users=$(grep -rlE --include='*.class' 'com/github/luben|net/jpountz' "$tmp" |
  grep -v '/shaded/io/netty/handler/codec/compression/' || true)
spark_used=""
if [[ -n "$spark_users" ]]; then
  # shellcheck disable=SC2086
  spark_used=$(javap -c -p $spark_users |
    grep -oE '(com/github/luben|net/jpountz)/[A-Za-z0-9_/$]+(\.[A-Za-z0-9_$<>"]+:[^ ]+)?' | sort -u)
fi
spark_unknown=$(comm -23 <(echo "$spark_used" | grep -v '^$' || true) <(sort <<<"$spark_allowed"))

status=0
if [[ -n "$spark_unknown" ]]; then
  echo "verify-shading: zstd-jni or lz4-java used beyond what every supported Spark's copy has:" >&2
  echo "$spark_unknown" >&2
  status=1
fi
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
  echo "verify-shading: OK, $(grep -cE '\.class$' <<<"$listing") classes, all under io/flightsql/spark/;" \
    "Spark's zstd-jni and lz4-java used through $(grep -c . <<<"$spark_used" || true) allowed names"
fi
exit $status
