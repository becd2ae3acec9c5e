"""The exit statuses of every ``tradeleague`` command, in one place.

0 done; 1 the record failed verification (or a sweep cell failed); 2 a user
error, said in one sentence before anything is written; 3 an agent never
decided (its provider failed, or no answer it gave was valid) or failed the
check before round one; 130 Ctrl-C, whole rounds kept.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_NO_DECISIONS",
    "EXIT_USER_ERROR",
    "INTERRUPT_HINT",
]

EXIT_FAILED: Final = 1
"""The record failed verification, or a sweep's cell failed."""

EXIT_USER_ERROR: Final = 2
"""A wrong argument, file or setting: one sentence on stderr, nothing written."""

EXIT_NO_DECISIONS: Final = 3
"""An agent never decided (its provider failed, or it never answered validly), or it failed
the check before round one."""

EXIT_INTERRUPTED: Final = 130
"""Ctrl-C: what was recorded so far is kept."""

INTERRUPT_HINT: Final = (
    "interrupted; whole rounds recorded so far are kept: run the same command again to resume."
)
"""What an interrupted command says on stderr."""
