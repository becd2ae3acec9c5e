"""The public surface of ``tradeleague.stats`` (ST-2, ST-3, S-SCO-1, D-SCO-1..6, D-LCK-1..3)."""

from __future__ import annotations

import doctest
import importlib

import pytest

import tradeleague.stats

MODULES = [
    "alpha",
    "binary_scores",
    "bootstrap",
    "calculator",
    "cutoff",
    "decay",
    "binary_luck",
    "luckiest",
    "ranking",
    "rating",
    "returns",
    "risk",
    "rounding",
    "verdicts",
]


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_its_public_names(name: str) -> None:
    """ST-2, ST-3: a module's ``__all__`` names what it defines; the package re-exports it."""
    module = importlib.import_module(f"tradeleague.stats.{name}")
    assert module.__all__
    for public in module.__all__:
        assert hasattr(module, public), public
        assert getattr(tradeleague.stats, public) is getattr(module, public)


def test_package_exports_exactly_the_module_names() -> None:
    """S-SCO-1, D-LCK-1..3: the package surface is the union of its modules' surfaces."""
    union = set()
    for name in MODULES:
        union |= set(importlib.import_module(f"tradeleague.stats.{name}").__all__)
    assert set(tradeleague.stats.__all__) == union
    assert len(tradeleague.stats.__all__) == len(union)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    """W-SCO-2, D-SCO-1, D-SCO-6, D-LCK-1..3: the examples in the docstrings are true."""
    module = importlib.import_module(f"tradeleague.stats.{name}")
    outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert outcome.failed == 0
