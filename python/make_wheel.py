"""Builds and tests the spark-flightsql wheel; run by Maven (python/pom.xml), standard library only.

    python3 make_wheel.py build --maven-version 0.1.0-SNAPSHOT --jar <shaded jar> \\
        --spark-lines 3.5,4.0,4.1,4.2,4.3 --target python/target
    python3 make_wheel.py test --target python/target

'build' stages this directory's package under <target>/wheel-src with the jar in
spark_flightsql/jars/ and the version in spark_flightsql/_build.py, then builds the wheel into
<target>/dist with the build backend (setuptools) and frontend ('build') of a virtualenv cached in
~/.cache/spark-flightsql/python-build, made once from PyPI. 'test' installs that wheel into
<target>/wheel-test-site and runs the package's tests (tests/) on it with pytest, with the
virtualenv's PySpark; tests that start Spark use JAVA_HOME.

The wheel's version is Maven's in PEP 440's form (see pep440_version).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Iterator, List

HERE = Path(__file__).resolve().parent

# The build virtualenv, pinned so that a cached one is reused while this list holds.
BUILD_REQUIREMENTS = [
    "build==1.3.0",
    "setuptools==80.9.0",
    "pytest==8.4.2",
    # The tests' PySpark: the release of the quick start (PySparkReleases.DEFAULT).
    "pyspark==4.1.4",
]
MARKER = "spark-flightsql-requirements.txt"


def pep440_version(maven_version: str) -> str:
    """Maven's version in PEP 440's form, which pip and PyPI require.

    0.1.0-SNAPSHOT -> 0.1.0.dev0 (a development release, older than 0.1.0); 0.1.0 -> 0.1.0;
    0.1.0-rc1 / -RC1 -> 0.1.0rc1; 0.1.0-alpha2 -> 0.1.0a2; 0.1.0-beta3 -> 0.1.0b3.
    """
    match = re.fullmatch(r"(\d+(?:\.\d+)*)(?:-(SNAPSHOT|rc|RC|alpha|beta)(\d*))?", maven_version)
    if match is None:
        raise ValueError(
            f"Maven version {maven_version!r} has no PEP 440 form here: use X.Y.Z, X.Y.Z-SNAPSHOT,"
            " X.Y.Z-rcN, X.Y.Z-alphaN or X.Y.Z-betaN"
        )
    release, kind, number = match.group(1), match.group(2), match.group(3)
    if kind is None:
        return release
    if kind == "SNAPSHOT":
        if number:
            raise ValueError(f"Maven version {maven_version!r}: SNAPSHOT takes no number")
        return release + ".dev0"
    suffix = {"rc": "rc", "RC": "rc", "alpha": "a", "beta": "b"}[kind]
    return release + suffix + (number or "0")


def cache_dir() -> Path:
    return Path(os.environ.get("HOME", str(Path.home()))) / ".cache" / "spark-flightsql"


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Holds an exclusive lock on path: builds of several worktrees share the virtualenv."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build_venv() -> Path:
    """The build virtualenv's Python, made (or made again) when its requirements changed."""
    home = cache_dir() / "python-build"
    wanted = "\n".join(BUILD_REQUIREMENTS) + "\n"
    with locked(cache_dir() / "python-build.lock"):
        marker = home / MARKER
        python = home / "bin" / "python"
        if python.exists() and marker.is_file() and marker.read_text() == wanted:
            return python
        print(f"[wheel] making the build virtualenv {home} (once): {BUILD_REQUIREMENTS}", flush=True)
        run([sys.executable, "-m", "venv", "--clear", str(home)])
        run(
            [str(home / "bin" / "pip"), "install", "--disable-pip-version-check", "--progress-bar",
             "off", "--cache-dir", str(cache_dir() / "pip")] + BUILD_REQUIREMENTS
        )
        marker.write_text(wanted)
        return python


def run(command: List[str], env: "dict[str, str] | None" = None) -> None:
    print("[wheel] " + " ".join(command), flush=True)
    completed = subprocess.run(command, env=env)
    if completed.returncode != 0:
        raise SystemExit(f"[wheel] failed with exit code {completed.returncode}: {' '.join(command)}")


def stage(target: Path, maven_version: str, jar: Path, spark_lines: List[str]) -> Path:
    """The package's sources under target/wheel-src, with the jar and the generated _build.py."""
    if not jar.is_file():
        raise SystemExit(f"[wheel] the connector's jar {jar} does not exist: build the connector first")
    staged = target / "wheel-src"
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir(parents=True)
    shutil.copy2(HERE / "pyproject.toml", staged)
    shutil.copy2(HERE / "README.md", staged)
    shutil.copy2(HERE.parent / "LICENSE", staged)
    shutil.copytree(
        HERE / "src", staged / "src", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_build.py")
    )
    package = staged / "src" / "spark_flightsql"
    (package / "jars").mkdir()
    shutil.copy2(jar, package / "jars" / jar.name)
    (package / "_build.py").write_text(
        '"""Written by make_wheel.py when the wheel is built; not in the source tree."""\n\n'
        f"VERSION = {pep440_version(maven_version)!r}\n"
        f"MAVEN_VERSION = {maven_version!r}\n"
        f"JAR_NAME = {jar.name!r}\n"
        f"SPARK_LINES = {tuple(spark_lines)!r}\n"
    )
    return staged


def check_wheel(wheel: Path, version: str, jar: Path) -> None:
    """Fails unless the wheel holds the jar, byte for byte, and says its version."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        inside = f"spark_flightsql/jars/{jar.name}"
        if inside not in names:
            raise SystemExit(f"[wheel] {wheel.name} has no {inside}: {names}")
        if archive.getinfo(inside).file_size != jar.stat().st_size:
            raise SystemExit(f"[wheel] {inside} in {wheel.name} is not {jar}")
        metadata = archive.read(f"spark_flightsql-{version}.dist-info/METADATA").decode()
        if f"\nVersion: {version}\n" not in metadata:
            raise SystemExit(f"[wheel] {wheel.name}'s METADATA does not say Version: {version}")
        for required in ("spark_flightsql/py.typed", "spark_flightsql/__main__.py",
                         "spark_flightsql/_build.py"):
            if required not in names:
                raise SystemExit(f"[wheel] {wheel.name} has no {required}")


def wheel_of(target: Path) -> Path:
    wheels = sorted((target / "dist").glob("spark_flightsql-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"[wheel] expected one wheel in {target / 'dist'}, found {wheels}")
    return wheels[0]


def build(args: argparse.Namespace) -> None:
    target = Path(args.target).resolve()
    jar = Path(args.jar).resolve()
    lines = [line.strip() for line in args.spark_lines.split(",") if line.strip()]
    python = build_venv()
    staged = stage(target, args.maven_version, jar, lines)
    dist = target / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    run([str(python), "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(staged)])
    wheel = wheel_of(target)
    check_wheel(wheel, pep440_version(args.maven_version), jar)
    print(f"[wheel] built {wheel} (version {pep440_version(args.maven_version)}, {jar.name})")


def test(args: argparse.Namespace) -> None:
    target = Path(args.target).resolve()
    wheel = wheel_of(target)
    python = build_venv()
    site = target / "wheel-test-site"
    shutil.rmtree(site, ignore_errors=True)
    # Into a directory of this build's own, not the shared virtualenv: builds of other worktrees
    # may run at the same time.
    run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-deps",
         "--no-compile", "--target", str(site), str(wheel)])
    env = dict(os.environ)
    env["PYTHONPATH"] = str(site)
    env["SPARK_FLIGHTSQL_TEST_SITE"] = str(site)
    env["PYSPARK_PYTHON"] = str(python)
    env["PYSPARK_DRIVER_PYTHON"] = str(python)
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    run([str(python), "-m", "pytest", "-p", "no:cacheprovider", "-q", "-ra",
         "--junitxml", str(target / "pytest-results.xml"), str(HERE / "tests")], env=env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    build_step = steps.add_parser("build", help="build the wheel")
    build_step.add_argument("--maven-version", required=True)
    build_step.add_argument("--jar", required=True, help="the connector's shaded jar")
    build_step.add_argument("--spark-lines", required=True, help="e.g. 3.5,4.0,4.1")
    build_step.add_argument("--target", required=True, help="the module's target directory")
    test_step = steps.add_parser("test", help="test the built wheel with pytest")
    test_step.add_argument("--target", required=True)
    args = parser.parse_args()
    {"build": build, "test": test}[args.step](args)


if __name__ == "__main__":
    main()
