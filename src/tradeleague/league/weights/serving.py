"""The weights league's share of ``tradeleague serve``: owners' season, endpoints, summaries."""

from __future__ import annotations

from typing import Final

from tradeleague.api.serving import Serving
from tradeleague.league.weights.owners import OwnerConfig, house_summarizer

__all__ = ["SERVE", "WeightsServe"]


class WeightsServe:
    """The weights league's ``serve`` part (`tradeleague.api.serving.ServePart`)."""

    def service(self, serving: Serving) -> None:
        """Return None: the site is not built on the weights league."""
        return None

    def prepare(self, serving: Serving) -> None:
        """Set the owners' season and allowed endpoints, and the house model's summaries."""
        season = serving.option("owner_season")
        endpoints = serving.option("owner_endpoint") or ()
        serving.owners = OwnerConfig(
            season=str(season) if season is not None else None,
            endpoints=tuple(str(e) for e in endpoints)
            if isinstance(endpoints, list | tuple)
            else (),
        )
        if serving.service is not None:
            serving.summarize = house_summarizer(serving.service)


SERVE: Final = WeightsServe()
