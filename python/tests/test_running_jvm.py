"""configure() against a real JVM: Spark started with the jar, and Spark already running without.

Each case runs in a Python process of its own (one JVM each, started at the same time), since a
process keeps its JVM until it exits. JAVA_HOME names the Java that Spark runs on.
"""

import subprocess
import sys
import textwrap
from typing import Dict

import pytest

CONFIGURED_FIRST = textwrap.dedent(
    """
    from pyspark.sql import SparkSession
    import spark_flightsql

    builder = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
    spark = spark_flightsql.configure(builder).getOrCreate()
    print("JARS", spark.conf.get("spark.jars"))
    # The data source resolves: its own error for a missing option, not Spark's for a missing
    # data source.
    try:
        spark.read.format("flightsql").load()
    except Exception as error:
        print("READ", str(error).splitlines()[0])
    # A JVM that has the jar is fine: configure() returns the builder as it was.
    again = SparkSession.Builder()
    print("AGAIN", spark_flightsql.configure(again) is again, "spark.jars" in again._options)
    spark.stop()
    """
)

RUNNING_WITHOUT = textwrap.dedent(
    """
    from pyspark.sql import SparkSession
    import spark_flightsql

    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    try:
        spark_flightsql.configure(SparkSession.builder)
        print("CONFIGURE passed")
    except spark_flightsql.SparkFlightSqlError as error:
        print("CONFIGURE", str(error))
    try:
        spark.read.format("flightsql").option("uri", "grpc://127.0.0.1:1").option("dbtable", "t").load()
    except Exception as error:
        print("READ", " ".join(str(error).split())[:600])
    spark.stop()
    """
)

_RUNS: Dict[str, subprocess.Popen] = {}


@pytest.fixture(scope="module")
def outputs() -> Dict[str, str]:
    for name, script in (("first", CONFIGURED_FIRST), ("without", RUNNING_WITHOUT)):
        _RUNS[name] = subprocess.Popen(
            [sys.executable, "-c", script],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    done = {}
    for name, process in _RUNS.items():
        output, _ = process.communicate(timeout=600)
        assert process.returncode == 0, output
        done[name] = output
    return done


def lines(output: str, prefix: str) -> str:
    found = [line[len(prefix) + 1 :] for line in output.splitlines() if line.startswith(prefix + " ")]
    assert len(found) == 1, f"one line '{prefix} ...' expected in:\n{output}"
    return found[0]


def test_the_jar_reaches_the_jvm_spark_starts(outputs: Dict[str, str]) -> None:
    import spark_flightsql

    output = outputs["first"]
    assert lines(output, "JARS").endswith(spark_flightsql.jar_path())
    assert "Option 'uri' is required" in lines(output, "READ"), output
    assert lines(output, "AGAIN") == "True False", output


def test_a_jvm_running_without_the_jar_is_told_how_to_get_it(outputs: Dict[str, str]) -> None:
    import spark_flightsql

    output = outputs["without"]
    message = lines(output, "CONFIGURE")
    assert message.startswith(
        "Spark's JVM is already running in this process without spark-flightsql's jar"
    ), output
    assert "before the first getOrCreate()" in message
    assert "--jars " + spark_flightsql.jar_path() in message
    # What the error saves the user from: Spark's own, later, at the first read.
    read = lines(output, "READ")
    assert "flightsql" in read and ("DATA_SOURCE_NOT_FOUND" in read or "ClassNotFound" in read), read
