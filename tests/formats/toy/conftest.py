"""Install the toy format for the tests in this folder, through the entry points.

The toy is registered exactly as a format installed from another package: a
distribution's metadata (``entry_points.txt`` under the group
``tradeleague.formats``) on ``sys.path``, found by ``importlib.metadata``. A
subprocess sees it through ``PYTHONPATH`` (`toy_env`).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tradeleague.plugin import registry

HERE = Path(__file__).resolve().parent


def _dist(root: Path) -> Path:
    info = root / "tradeleague_toy-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tradeleague-toy\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[tradeleague.formats]\ntoy = toyformat.plugin:FORMAT\n")
    return root


@pytest.fixture(scope="session")
def toy_paths(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """The folder holding the toy's distribution metadata, and the toy's package folder."""
    return str(_dist(tmp_path_factory.mktemp("toy-dist"))), str(HERE)


@pytest.fixture(autouse=True)
def toy_installed(toy_paths: tuple[str, str]) -> Iterator[None]:
    """The toy is an installed format for the test, and is not after it."""
    sys.path[:0] = toy_paths
    importlib.invalidate_caches()
    registry.reload()
    try:
        yield
    finally:
        for path in toy_paths:
            sys.path.remove(path)
        importlib.invalidate_caches()
        registry.reload()


@pytest.fixture
def toy_env(toy_paths: tuple[str, str]) -> dict[str, str]:
    """An environment in which a subprocess finds the toy installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*toy_paths, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env
