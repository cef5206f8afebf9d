"""python -m spark_flightsql, as a shell runs it."""

import subprocess
import sys

import spark_flightsql


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "spark_flightsql", *args], capture_output=True, text=True
    )


def test_jar_prints_the_path_alone() -> None:
    done = run("--jar")
    assert done.returncode == 0, done.stderr
    assert done.stdout == spark_flightsql.jar_path() + "\n"


def test_version_names_the_spark_lines() -> None:
    done = run("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"spark-flightsql {spark_flightsql.__version__} (Spark 3.5, 4.0, 4.1, 4.2, 4.3)\n"
    )


def test_no_argument_is_a_usage_error() -> None:
    done = run()
    assert done.returncode == 2
    assert "one of the arguments --jar --version is required" in done.stderr
