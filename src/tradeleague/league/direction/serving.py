"""The direction arena's share of ``tradeleague serve``: which arena the site shows, by what rules.

The arena's stream is ``--direction-stream``, else the league file's
(``--config``), else ``direction``; with a league file, visitors' calls are
taken by its rounds' rules (drill or the seed's).
"""

from __future__ import annotations

from typing import Final

from tradeleague.api.serving import Serving
from tradeleague.host.config import LeagueConfig
from tradeleague.league.direction.config import DirectionConfig, direction_preset

__all__ = ["SERVE", "DirectionServe"]


class DirectionServe:
    """The arena's ``serve`` part (`tradeleague.api.serving.ServePart`)."""

    def service(self, serving: Serving) -> None:
        """Return None: the site is not built on the arena."""
        return None

    def prepare(self, serving: Serving) -> None:
        """Set the site's ``direction_stream`` and, with a league file, ``direction_preset``."""
        given = serving.option("direction_stream")
        stream = str(given) if given is not None else "direction"
        league = serving.league
        arena = league.of(DirectionConfig) if isinstance(league, LeagueConfig) else None
        if arena is not None:
            stream = str(given) if given is not None else arena.stream
            serving.settings["direction_preset"] = direction_preset(arena)
        serving.settings["direction_stream"] = stream


SERVE: Final = DirectionServe()
