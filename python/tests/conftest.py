"""The tests run on the built wheel, installed by make_wheel.py into a directory of its own."""

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def tested_package_is_the_wheel() -> None:
    import spark_flightsql

    site = os.environ.get("SPARK_FLIGHTSQL_TEST_SITE")
    assert site, "run the tests through make_wheel.py test (Maven's package phase of python/)"
    assert Path(spark_flightsql.__file__).resolve().is_relative_to(Path(site).resolve()), (
        f"spark_flightsql was imported from {spark_flightsql.__file__}, not from the wheel"
        f" installed in {site}"
    )
