"""``python -m spark_flightsql --jar`` prints the connector jar's path, for ``--jars``::

    spark-submit --jars "$(python -m spark_flightsql --jar)" app.py
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

import spark_flightsql


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command line; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m spark_flightsql",
        description="spark-flightsql, the Apache Spark connector for Arrow Flight SQL servers.",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--jar",
        action="store_true",
        help="print the path of the connector's jar (for spark-submit --jars)",
    )
    what.add_argument(
        "--version",
        action="store_true",
        help="print this package's version and the Spark release lines it supports",
    )
    args = parser.parse_args(argv)
    if args.jar:
        try:
            print(spark_flightsql.jar_path())
        except spark_flightsql.SparkFlightSqlError as error:
            print(error, file=sys.stderr)
            return 1
    else:
        print(
            f"spark-flightsql {spark_flightsql.__version__} (Spark"
            f" {', '.join(spark_flightsql.SUPPORTED_SPARK_LINES)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
