"""Per-agent seeds: each seeded baseline draws its own stream, fixed by its season and name.

A roster of a thousand coin flippers holds a thousand different coins: the seed
of each is derived from the season, the agent's name and the run's base seed,
so two agents draw the same stream only when told to (the same name in the
same season, or a base seed chosen to make them so), and a replay of the
same season draws the same coins again (C-1).
"""

from __future__ import annotations

import hashlib

__all__ = ["agent_seed"]


def agent_seed(season: str, name: str, base: int = 0) -> int:
    """Return the seed of agent ``name`` in ``season``: 63 bits of a SHA-256 of the three.

    Examples
    --------
    >>> agent_seed("s1", "coin") == agent_seed("s1", "coin")
    True
    >>> agent_seed("s1", "coin") != agent_seed("s1", "coin2")
    True
    """
    digest = hashlib.sha256(f"{base}\x1f{season}\x1f{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
