"""The Maven-to-PEP 440 version mapping of the build (make_wheel.py)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from make_wheel import pep440_version  # noqa: E402


@pytest.mark.parametrize(
    "maven, python",
    [
        ("0.1.0-SNAPSHOT", "0.1.0.dev0"),
        ("0.1.0", "0.1.0"),
        ("1.2.3-rc1", "1.2.3rc1"),
        ("1.2.3-RC2", "1.2.3rc2"),
        ("1.2.3-alpha1", "1.2.3a1"),
        ("1.2.3-beta", "1.2.3b0"),
    ],
)
def test_maven_versions_map_to_pep440(maven: str, python: str) -> None:
    assert pep440_version(maven) == python


@pytest.mark.parametrize("maven", ["0.1.0-foo", "0.1.0-SNAPSHOT2", "latest"])
def test_other_maven_versions_are_refused_by_name(maven: str) -> None:
    with pytest.raises(ValueError, match=repr(maven)):
        pep440_version(maven)
