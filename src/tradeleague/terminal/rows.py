"""How many agents a terminal table shows, and the line that says where the rest are.

A board of a thousand agents is not read in a terminal: it is read on the site
or in REPORT.json. A replay's tables (the board, the per-agent summary, the
inference costs) show the first `SHOWN` agents of the board when it holds more
and the user did not ask for all (``--all``), and end with one line saying how
many are left out and where every row is. REPORT.json always holds every agent.
"""

from __future__ import annotations

from typing import Final

__all__ = ["SHOWN", "rest_line"]

SHOWN: Final = 50
"""Agents a terminal table shows without ``--all``."""


def rest_line(hidden: int, where: str) -> str:
    """Return the line that says ``hidden`` agents are not shown and where they are.

    >>> rest_line(950, "REPORT.json")
    '950 more agents not shown here (--all shows every row): see REPORT.json.'
    """
    agents = "agent" if hidden == 1 else "agents"
    return f"{hidden:,} more {agents} not shown here (--all shows every row): see {where}."
