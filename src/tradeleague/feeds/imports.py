"""Imports that change the interpreter's state, made so that they do not.

``py_ecc`` (imported by ``web3``, which the Chainlink source uses) raises
Python's recursion limit to 100,000 when it is imported. With that limit a
deeply nested document no longer raises ``RecursionError``: it overflows the C
stack and kills the process. ``keep_recursion_limit`` imports such a module
and puts the limit back; `tradeleague.feeds` does it for ``py_ecc`` before
anything can import ``web3``, so the limit every other part relies on stays
the interpreter's own.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

__all__ = ["keep_recursion_limit"]


def keep_recursion_limit(name: str) -> ModuleType | None:
    """Import module ``name`` and restore the recursion limit it may have changed.

    Returns the module, or ``None`` where it is not installed.
    """
    limit = sys.getrecursionlimit()
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
    finally:
        sys.setrecursionlimit(limit)
