"""configure(), jar_path() and the version check, on PySpark's own builders (no JVM starts)."""

import re
import zipfile
from pathlib import Path

import pyspark
import pytest
from pyspark.sql import SparkSession

import spark_flightsql
from spark_flightsql import SparkFlightSqlError, UnsupportedSparkError


def new_builder() -> SparkSession.Builder:
    # SparkSession.builder is one shared object; each test takes a builder of its own.
    return SparkSession.Builder()


def test_the_jar_is_the_connector() -> None:
    jar = Path(spark_flightsql.jar_path())
    assert jar.is_absolute() and jar.is_file()
    assert re.fullmatch(r"spark-flightsql-\d+\.\d+\.\d+(-[A-Za-z0-9]+)?\.jar", jar.name)
    with zipfile.ZipFile(jar) as archive:
        service = archive.read(
            "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister"
        ).decode()
        assert spark_flightsql.DATA_SOURCE_CLASS in service
        assert "io/flightsql/spark/FlightSqlDataSource.class" in archive.namelist()


def test_version_is_mavens_in_pep440_form() -> None:
    maven = spark_flightsql._build.MAVEN_VERSION
    jar_version = Path(spark_flightsql.jar_path()).name[len("spark-flightsql-") : -len(".jar")]
    assert jar_version == maven
    expected = maven.replace("-SNAPSHOT", ".dev0")
    assert spark_flightsql.__version__ == expected


def test_supported_lines_run_from_35_to_43() -> None:
    assert spark_flightsql.SUPPORTED_SPARK_LINES == ("3.5", "4.0", "4.1", "4.2", "4.3")


def test_configure_puts_the_jar_on_spark_jars() -> None:
    builder = new_builder()
    assert spark_flightsql.configure(builder) is builder
    assert builder._options["spark.jars"] == spark_flightsql.jar_path()


def test_configure_adds_the_plugin_after_the_users_plugins_once() -> None:
    builder = new_builder().config("spark.plugins", "com.example.Plugin")
    spark_flightsql.configure(spark_flightsql.configure(builder))
    assert builder._options["spark.plugins"] == "com.example.Plugin," + spark_flightsql.PLUGIN_CLASS
    with zipfile.ZipFile(spark_flightsql.jar_path()) as archive:
        assert "io/flightsql/spark/FlightSqlPlugin.class" in archive.namelist()


def test_configure_adds_the_extensions_after_the_users_once() -> None:
    builder = new_builder().config("spark.sql.extensions", "com.example.Extensions")
    spark_flightsql.configure(spark_flightsql.configure(builder))
    assert (
        builder._options["spark.sql.extensions"]
        == "com.example.Extensions," + spark_flightsql.EXTENSIONS_CLASS
    )
    with zipfile.ZipFile(spark_flightsql.jar_path()) as archive:
        assert "io/flightsql/spark/FlightSqlExtensions.class" in archive.namelist()


def test_configure_leaves_the_extensions_alone_when_asked() -> None:
    builder = new_builder()
    spark_flightsql.configure(builder, extensions=False)
    assert "spark.sql.extensions" not in builder._options


def test_configure_leaves_the_plugins_alone_when_asked() -> None:
    builder = new_builder()
    spark_flightsql.configure(builder, plugin=False)
    assert "spark.plugins" not in builder._options
    assert builder._options["spark.jars"] == spark_flightsql.jar_path()


def test_configure_keeps_the_users_jars_and_adds_once() -> None:
    builder = new_builder().config("spark.jars", "/opt/a.jar, /opt/b.jar")
    spark_flightsql.configure(spark_flightsql.configure(builder))
    assert builder._options["spark.jars"] == "/opt/a.jar,/opt/b.jar," + spark_flightsql.jar_path()


def test_configure_refuses_a_second_connector_jar() -> None:
    builder = new_builder().config("spark.jars", "/opt/spark-flightsql-0.0.9.jar")
    with pytest.raises(SparkFlightSqlError) as raised:
        spark_flightsql.configure(builder)
    message = str(raised.value)
    assert "/opt/spark-flightsql-0.0.9.jar" in message
    assert spark_flightsql.jar_path() in message
    assert builder._options["spark.jars"] == "/opt/spark-flightsql-0.0.9.jar"


@pytest.mark.parametrize("version", ["3.5.0", "3.5.9", "4.0.5", "4.1.4", "4.2.1", "4.3.0"])
def test_supported_pysparks_pass(version: str) -> None:
    spark_flightsql.check_supported(version)


@pytest.mark.parametrize("version", ["3.4.4", "4.4.0", "2.4.8", "unknown"])
def test_unsupported_pyspark_is_named_with_the_packages_version(version: str) -> None:
    with pytest.raises(UnsupportedSparkError) as raised:
        spark_flightsql.check_supported(version)
    message = str(raised.value)
    assert f"the installed PySpark is {version}" in message
    assert f"spark-flightsql {spark_flightsql.__version__} runs on Spark 3.5, 4.0" in message
    assert "pip install 'pyspark>=3.5,<4.4'" in message


def test_configure_checks_the_installed_pyspark(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pyspark, "__version__", "3.4.1")
    builder = new_builder()
    with pytest.raises(UnsupportedSparkError, match="the installed PySpark is 3.4.1"):
        spark_flightsql.configure(builder)
    assert "spark.jars" not in builder._options
    spark_flightsql.configure(builder, check_version=False)
    assert builder._options["spark.jars"] == spark_flightsql.jar_path()


def test_local_spark_connect_gets_the_jar() -> None:
    builder = spark_flightsql.configure(new_builder().remote("local"))
    assert builder._options["spark.jars"] == spark_flightsql.jar_path()


def test_a_remote_spark_connect_server_is_told_to_load_the_jar_itself() -> None:
    builder = new_builder().remote("sc://spark.example.com:15002")
    with pytest.raises(SparkFlightSqlError) as raised:
        spark_flightsql.configure(builder)
    message = str(raised.value)
    assert "sc://spark.example.com:15002" in message
    assert "--jars " + spark_flightsql.jar_path() in message
    assert "spark.jars" not in builder._options


def test_spark_remote_in_the_environment_is_a_remote_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SPARK_REMOTE", "sc://127.0.0.1:15002")
    builder = new_builder()
    with pytest.raises(SparkFlightSqlError, match="sc://127.0.0.1:15002"):
        spark_flightsql.configure(builder)
    assert "spark.jars" not in builder._options


def test_something_else_than_a_builder_is_refused() -> None:
    with pytest.raises(TypeError, match="takes a pyspark.sql.SparkSession.Builder"):
        spark_flightsql.configure("local[2]")  # type: ignore[arg-type]
