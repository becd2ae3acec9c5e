"""The console that wide boards print to."""

from __future__ import annotations

from rich.console import Console

__all__ = ["BOARD_WIDTH", "board_console"]

BOARD_WIDTH = 150
"""Columns a board needs to show every column whole."""


def board_console() -> Console:
    """Return a console at least ``BOARD_WIDTH`` wide.

    Rich sizes a console to the terminal, or to 80 columns when output is piped
    (``make demo | less``, CI logs), which would cut a board's columns to ``…``.
    """
    console = Console()
    return console if console.width >= BOARD_WIDTH else Console(width=BOARD_WIDTH)
