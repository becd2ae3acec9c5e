"""Each format's ratings across seasons, as JSON (``/api/v1/ratings/KEY``) and as a page.

The read model is `tradeleague.league.ratings.store_ratings` over the site's
store; the page (``/ratings/KEY``) is rendered from the very payload the JSON
route serves, with the percent strings the terminal prints
(`tradeleague.terminal.ratings`). A rating is computed again only when the
store has new events (the latest few are kept). The formats are the installed
ones with a ``results`` part, in the registry's order; none is named here.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final

from fastapi import APIRouter, FastAPI
from fastapi import Path as FastPath
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import Field

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.league.bodies import ReadOut, answer_of, read_config
from tradeleague.league.ratings import DEFAULT_SEED, store_ratings
from tradeleague.league.results import rating_payload
from tradeleague.stats.rating import Interval, Rating
from tradeleague.store import Store
from tradeleague.terminal.ratings import (
    CUTOFF_WORDS,
    VERDICT_WORDS,
    difference_text,
    interval_text,
    p_text,
)
from tradeleague.web.errors import NotFound, json_answer
from tradeleague.web.render import Pages

__all__ = ["Rated", "RatingsReads", "install_ratings"]

_KEPT: Final = 8
"""Ratings kept, keyed by format and the store's event count."""


@dataclass(frozen=True, slots=True)
class Rated:
    """A format the site rates: its key and title."""

    key: str
    title: str


def _interval(found: dict[str, Any] | None) -> str:
    if found is None:
        return "-"
    return interval_text(Interval(found["seasons"], found["mean"], found["low"], found["high"]))


class RatingsReads:
    """The ratings read model: one format's rating over every season in the store."""

    def __init__(self, store: Store, formats: Sequence[Rated]) -> None:
        self._store = store
        self._formats = {f.key: f for f in formats}
        self._kept: dict[tuple[str, int], Rating | None] = {}
        self._lock = threading.Lock()

    @property
    def formats(self) -> list[Rated]:
        """The formats rated, in the registry's order."""
        return list(self._formats.values())

    def _rating(self, key: str) -> Rating | None:
        events = self._store.count()
        with self._lock:
            if (key, events) not in self._kept:
                while len(self._kept) >= _KEPT:
                    del self._kept[next(iter(self._kept))]
                found = store_ratings(self._store, seed=DEFAULT_SEED, only=key)
                self._kept[key, events] = found.get(key)
            return self._kept[key, events]

    def index(self) -> dict[str, Any]:
        """Return the formats with ratings and where each is served."""
        return {
            "disclaimer": DISCLAIMER,
            "formats": {k: f"/api/v1/ratings/{k}" for k in self._formats},
        }

    def rating(self, key: str) -> dict[str, Any]:
        """Return format ``key``'s rating across its seasons (exact values, fractions of one).

        Raises
        ------
        NotFound
            No format ``key`` has ratings.
        """
        found = self._formats.get(key)
        if found is None:
            raise NotFound(f"no format {key!r} with ratings")
        rating = self._rating(key)
        return {
            "disclaimer": DISCLAIMER,
            "format": key,
            "title": found.title,
            "rating": None if rating is None else rating_payload(rating),
        }


class RatingsOut(ReadOut):
    """The formats with ratings across seasons, and where each is served."""

    model_config = read_config({"formats": {"weights": "/api/v1/ratings/weights"}})

    formats: dict[str, str] = Field(description="Per format key, its ratings route.")


class RatingOut(ReadOut):
    """A format's rating: each model's mean excess return over seasons, and pairwise tests."""

    model_config = read_config(
        {
            "format": "weights",
            "title": "Weights league",
            "rating": {
                "method": "mean excess return over seasons; 95% bootstrap interval",
                "seed": 0,
                "resamples": 10000,
                "models": [{"model": "eq", "seasons": 1, "runs": 1}],
                "pairs": [],
            },
        }
    )

    format: str = Field(description="The format's key.")
    title: str = Field(description="The format's name.")
    rating: dict[str, Any] | None = Field(
        description="The method, seed and resamples; per model, its seasons, runs and mean "
        "excess return over cash and the benchmark with a 95% interval (fractions of one) "
        "and its cutoff (before_cutoff, after_cutoff, cutoff_unknown, mixed; null for a "
        "baseline); each pair's verdict. Null before any season has ended."
    )


def install_ratings(app: FastAPI, pages: Pages, reads: RatingsReads) -> None:
    """Add ``/api/v1/ratings``, ``/api/v1/ratings/KEY`` and the pages ``/ratings/KEY``.

    The home page links each format's ratings page (the ``rated`` global).
    """
    pages.env.globals["rated"] = reads.formats
    api = APIRouter(prefix="/api/v1/ratings", tags=["public"])

    @api.get("", summary="The formats rated across seasons", responses=answer_of(RatingsOut))
    def index() -> JSONResponse:
        """List the formats with ratings across seasons, and where each is served.

        Public: no key, no quota.
        """
        return json_answer(reads.index)

    @api.get(
        "/{key}",
        summary="A format's rating across seasons",
        # the error body is the API's one (`tradeleague.api.app` documents it as such)
        responses={**answer_of(RatingOut), 404: {"description": "not_found: no such format."}},
    )
    def rating(
        key: Annotated[str, FastPath(description="The format's key (GET /api/v1/ratings).")],
    ) -> JSONResponse:
        """Rate each model across the format's seasons: mean excess return, interval, pairs.

        Excess returns are fractions of one. Public: no key, no quota.
        """
        return json_answer(lambda: reads.rating(key))

    app.include_router(api)
    router = APIRouter(include_in_schema=False)

    @router.get("/ratings/{key}", response_class=HTMLResponse)
    def page(key: str) -> HTMLResponse:
        def build() -> HTMLResponse:
            body = reads.rating(key)
            shown = body["rating"]
            models = pairs = []
            if shown is not None:
                models = [
                    {**m, "cash_text": _interval(m["vs_cash"]),
                     "benchmark_text": _interval(m["vs_benchmark"]),
                     "cutoff_text": CUTOFF_WORDS.get(m.get("cutoff") or "", "not a model")}
                    for m in shown["models"]
                ]  # fmt: skip
                pairs = [
                    {**p, "words": VERDICT_WORDS[p["verdict"]],
                     "difference_text": difference_text(p["difference"]),
                     "p_text": p_text(p["p_value"]), "holm_text": p_text(p["p_holm"])}
                    for p in shown["pairs"]
                ]  # fmt: skip
            return pages.page(
                "ratings.html",
                title=f"{body['title']}: ratings across seasons",
                key=key,
                rating=shown,
                models=models,
                pairs=pairs,
            )

        return pages.guarded(build)

    app.include_router(router)
