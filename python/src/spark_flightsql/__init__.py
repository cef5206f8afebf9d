"""spark-flightsql for PySpark: the connector's jar, put where Spark's JVM will load it.

The wheel carries the connector's shaded jar. Call :func:`configure` on a session builder before
its first ``getOrCreate()``::

    from pyspark.sql import SparkSession
    import spark_flightsql

    spark = spark_flightsql.configure(SparkSession.builder.appName("demo")).getOrCreate()
    df = spark.read.format("flightsql").option("uri", "grpc://127.0.0.1:31337") \\
        .option("dbtable", "lineitem").load()

For ``spark-submit``, ``pyspark`` or ``spark-shell`` (whose JVM starts before any Python code
runs), and for a Spark Connect server, give the jar on the command line instead::

    spark-submit --jars "$(python -m spark_flightsql --jar)" app.py
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional, Tuple

from spark_flightsql._build import JAR_NAME, SPARK_LINES, VERSION

if TYPE_CHECKING:  # pragma: no cover - only for type checkers
    from pyspark.sql import SparkSession

__all__ = [
    "__version__",
    "PLUGIN_CLASS",
    "SUPPORTED_SPARK_LINES",
    "SparkFlightSqlError",
    "UnsupportedSparkError",
    "check_supported",
    "configure",
    "jar_path",
]

__version__: str = VERSION
"""This package's version, which is the jar's (Maven's ``0.1.0-SNAPSHOT`` is ``0.1.0.dev0``)."""

SUPPORTED_SPARK_LINES: Tuple[str, ...] = tuple(SPARK_LINES)
"""The Spark release lines (major.minor) the jar is built and tested for, oldest first."""

DATA_SOURCE_CLASS = "io.flightsql.spark.FlightSqlDataSource"
"""A class of the jar, looked up in a JVM that is already running to see whether it has the jar."""

PLUGIN_CLASS = "io.flightsql.spark.FlightSqlPlugin"
"""The connector's Spark plugin, which :func:`configure` adds to ``spark.plugins``."""

EXTENSIONS_CLASS = "io.flightsql.spark.FlightSqlExtensions"
"""The connector's optimizer rules, which :func:`configure` adds to ``spark.sql.extensions``."""


class SparkFlightSqlError(RuntimeError):
    """Spark cannot be given the connector's jar as asked; the message says what to do instead."""


class UnsupportedSparkError(SparkFlightSqlError):
    """The installed PySpark is of a release line the jar does not support."""


def jar_path() -> str:
    """The absolute path of the connector's jar inside this package, for ``--jars``."""
    jar = Path(__file__).resolve().parent / "jars" / JAR_NAME
    if not jar.is_file():
        raise SparkFlightSqlError(
            f"The connector's jar {jar} is missing from the spark-flightsql package: the"
            " installation is broken. Reinstall it (pip install --force-reinstall spark-flightsql)."
        )
    return str(jar)


def configure(
    builder: "SparkSession.Builder",
    *,
    check_version: bool = True,
    plugin: bool = True,
    extensions: bool = True,
) -> "SparkSession.Builder":
    """Returns ``builder`` with the connector's jar on ``spark.jars`` and its plugin on ``spark.plugins``.

    Call it before the builder's first ``getOrCreate()``: Spark reads ``spark.jars`` when its JVM
    starts, and a JVM that runs without the jar cannot be given it afterwards. Jars already set on
    the builder's ``spark.jars`` are kept; this one is added after them. (Spark lets the builder's
    ``spark.jars`` replace one from ``spark-defaults.conf``, and ``--jars`` in
    ``PYSPARK_SUBMIT_ARGS`` replace the builder's: list such jars on the builder instead.)

    It checks first that the installed PySpark is of a release line the jar supports
    (:data:`SUPPORTED_SPARK_LINES`), and raises :class:`UnsupportedSparkError`, naming both
    versions, when it is not. ``check_version=False`` skips that check, for a Spark the jar was
    not tested on.

    A builder for Spark Connect's local server (``remote("local")``) gets the jar too: that
    server runs in a JVM this process starts. A builder for a remote Spark Connect server
    (``sc://...``) cannot: that server loads connectors from its own class path, so a
    :class:`SparkFlightSqlError` says how to start it with the jar.

    If a JVM already runs in this process (``spark-submit``, ``pyspark``, or an earlier
    ``getOrCreate()``), the builder is returned unchanged when that JVM already has the
    connector (given with ``--jars``), and a :class:`SparkFlightSqlError` is raised when it has
    not, instead of the ``ClassNotFoundException`` the first read would meet later.

    The plugin (:data:`PLUGIN_CLASS`) loads the connector's classes on a background thread while
    Spark starts, so that the session's first read does not wait for them (about 1.5 s less on a
    2-core machine; see docs/operations.md). Plugins already set on the builder's
    ``spark.plugins`` are kept. ``plugin=False`` leaves ``spark.plugins`` alone, for a job that
    reads as soon as Spark has started, where the loading would only compete with Spark's own.

    The extensions (:data:`EXTENSIONS_CLASS`) let a star join whose dimension filter is pushed to
    the server still filter its fact read at run time (docs/pushdown.md, "Runtime filters").
    Extensions already set on the builder's ``spark.sql.extensions`` are kept.
    ``extensions=False`` leaves ``spark.sql.extensions`` alone.

    Args:
        builder: ``SparkSession.builder``, with whatever else it was given.
        check_version: whether to refuse a PySpark of a release line the jar does not support.
        plugin: whether to add the connector's plugin to ``spark.plugins``.
        extensions: whether to add the connector's extensions to ``spark.sql.extensions``.

    Returns:
        The same builder, for chaining.

    Raises:
        UnsupportedSparkError: the installed PySpark's release line is not supported.
        SparkFlightSqlError: the jar cannot reach the JVM this builder will use.
    """
    pyspark_version = _installed_pyspark_version()
    if check_version:
        check_supported(pyspark_version)
    jar = jar_path()
    options = _builder_options(builder)
    remote = _remote_url(options, os.environ)
    if remote is not None and not _is_local_connect(remote):
        raise SparkFlightSqlError(
            f"This builder connects to the Spark Connect server {remote}, which loads connectors"
            " from its own class path: spark_flightsql.configure() cannot give it the jar. Start"
            f" the server with the jar (start-connect-server.sh --jars {jar}, or copy the jar into"
            " the server's jars/ directory) and build the client's session without configure()."
        )
    if _jvm_is_running():
        if _running_jvm_has_connector():
            return builder
        raise SparkFlightSqlError(
            "Spark's JVM is already running in this process without spark-flightsql's jar, and a"
            " running JVM cannot be given it: spark.jars is read when the JVM starts. Call"
            " spark_flightsql.configure(builder) before the first getOrCreate() (in a notebook,"
            " restart the kernel and run it first), or, for spark-submit and pyspark, pass the jar"
            f" on the command line: --jars {jar}"
        )
    jars = _merged_jars(options.get("spark.jars"), jar)
    builder = builder.config("spark.jars", jars)
    if plugin:
        builder = builder.config(
            "spark.plugins", _merged_plugins(options.get("spark.plugins"), PLUGIN_CLASS)
        )
    if extensions:
        builder = builder.config(
            "spark.sql.extensions",
            _merged_plugins(options.get("spark.sql.extensions"), EXTENSIONS_CLASS),
        )
    return builder


def check_supported(pyspark_version: str) -> None:
    """Raises :class:`UnsupportedSparkError` unless ``pyspark_version``'s line is supported."""
    line = _release_line(pyspark_version)
    if line is None or line not in SUPPORTED_SPARK_LINES:
        raise UnsupportedSparkError(
            f"spark-flightsql {VERSION} runs on Spark {', '.join(SUPPORTED_SPARK_LINES)}, and the"
            f" installed PySpark is {pyspark_version}. Install a PySpark of one of those lines"
            f" (pip install 'pyspark>={SUPPORTED_SPARK_LINES[0]},<{_next_line()}'), or pass"
            " check_version=False to try this jar on it anyway."
        )


def _merged_plugins(existing: Optional[str], plugin: str) -> str:
    """A class list's value (``spark.plugins``, ``spark.sql.extensions``) with ``plugin`` added
    after the classes it already lists, once."""
    entries = [entry.strip() for entry in (existing or "").split(",") if entry.strip()]
    if plugin not in entries:
        entries.append(plugin)
    return ",".join(entries)


def _merged_jars(existing: Optional[str], jar: str) -> str:
    """``spark.jars``' value with ``jar`` added after the jars it already lists.

    A different spark-flightsql jar already listed would put two versions of the connector on
    one class path, so it is refused.
    """
    entries = [entry.strip() for entry in (existing or "").split(",") if entry.strip()]
    ours = Path(jar).name
    for entry in entries:
        name = entry.rsplit("/", 1)[-1]
        if name == ours and _same_file(entry, jar):
            return ",".join(entries)
        if name.startswith("spark-flightsql-") and name.endswith(".jar"):
            raise SparkFlightSqlError(
                f"spark.jars already lists another spark-flightsql jar, {entry}; this package"
                f" would add {jar}, and two versions of the connector cannot share a JVM. Remove"
                " the other one from spark.jars."
            )
    return ",".join(entries + [jar])


def _same_file(entry: str, jar: str) -> bool:
    path = entry[len("file:") :] if entry.startswith("file:") else entry
    try:
        return os.path.samefile(path, jar)
    except OSError:
        return False


def _release_line(version: str) -> Optional[str]:
    match = re.match(r"^(\d+)\.(\d+)", version)
    return f"{match.group(1)}.{match.group(2)}" if match else None


def _next_line() -> str:
    major, minor = SUPPORTED_SPARK_LINES[-1].split(".")
    return f"{major}.{int(minor) + 1}"


def _installed_pyspark_version() -> str:
    try:
        import pyspark
    except ImportError as missing:
        raise SparkFlightSqlError(
            "PySpark is not installed. Install a PySpark the jar supports (Spark"
            f" {', '.join(SUPPORTED_SPARK_LINES)}): pip install 'spark-flightsql[pyspark]', or"
            " pip install pyspark"
        ) from missing
    return str(getattr(pyspark, "__version__", "unknown"))


def _builder_options(builder: object) -> Mapping[str, str]:
    # PySpark's builders (classic and Connect, 3.5 to 4.3) keep what config() was given in
    # _options; there is no public reader of it.
    options = getattr(builder, "_options", None)
    if not isinstance(options, dict):
        raise TypeError(
            f"spark_flightsql.configure() takes a pyspark.sql.SparkSession.Builder (such as"
            f" SparkSession.builder), not {type(builder).__name__}"
        )
    return {str(key): str(value) for key, value in options.items()}


def _remote_url(options: Mapping[str, str], environment: Mapping[str, str]) -> Optional[str]:
    """The Spark Connect server the builder will use, or None for a classic session."""
    if "spark.remote" in options:
        return options["spark.remote"]
    return environment.get("SPARK_REMOTE") or None


def _is_local_connect(url: str) -> bool:
    # remote("local"), remote("local[4]") and remote("local-cluster[...]") start a Connect
    # server in a JVM of this process, from the builder's options (spark.jars included).
    return url == "local" or url.startswith("local[") or url.startswith("local-cluster[")


def _jvm_is_running() -> bool:
    """Whether Spark's JVM runs already: started by PySpark, or the parent (spark-submit)."""
    if "PYSPARK_GATEWAY_PORT" in os.environ:
        return True
    context_class = _spark_context_class()
    return context_class is not None and getattr(context_class, "_jvm", None) is not None


def _running_jvm_has_connector() -> bool:
    context_class = _spark_context_class()
    if context_class is None:
        return False
    if getattr(context_class, "_jvm", None) is None:
        # spark-submit's JVM runs, and this process has not connected to it yet: connecting
        # starts nothing, and it is what the first getOrCreate() would do.
        context_class._ensure_initialized()
    jvm = context_class._jvm
    try:
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        jvm.java.lang.Class.forName(DATA_SOURCE_CLASS, False, loader)
    except Exception as error:  # noqa: BLE001 - py4j reports a missing class as Py4JJavaError
        if "ClassNotFoundException" in str(error) or "NoClassDefFoundError" in str(error):
            return False
        raise
    return True


def _spark_context_class() -> Optional[Any]:
    try:
        from pyspark import SparkContext
    except ImportError:
        # pyspark-client, the Connect-only PySpark: it never starts a JVM.
        return None
    return SparkContext
