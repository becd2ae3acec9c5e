"""The answer bodies every read API shares, and how a route documents its answer.

A format's read API (``tradeleague.league.<format>.models``), the ratings and
the account routes build their answers on `ReadOut` (the answer's own fields
and the standing disclaimer, nothing else) with an example from `read_config`,
and document them with `answer_of`. Here, below the interfaces, so the web kit
and the API kit both reach them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tradeleague.disclaimer import DISCLAIMER

__all__ = [
    "ChangeOut",
    "DatedChangesOut",
    "ReadOut",
    "SeasonsOut",
    "answer_of",
    "read_config",
]


def read_config(example: dict[str, Any]) -> ConfigDict:
    """Return an answer's config: no field beyond its own, and ``example`` shown in ``/docs``.

    The example is given without ``disclaimer``; every answer carries it, so it is added.
    """
    return ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"disclaimer": DISCLAIMER, **example}]}
    )


class ReadOut(BaseModel):
    """An answer of a read API: its own fields and the site's standing disclaimer."""

    model_config = ConfigDict(extra="forbid")

    disclaimer: str = Field(description="The site's standing disclaimer: paper trading only.")


class ChangeOut(BaseModel):
    """One dated change that affects how seasons compare."""

    date: str = Field(description="The day it took effect (ISO 8601 date, UTC).")
    change: str = Field(description="What changed, in one sentence.")


class DatedChangesOut(ReadOut):
    """The dated changes that affect comparability, oldest first."""

    model_config = read_config(
        {"changes": [{"date": "2024-02-05", "change": "Scoring version weights-scoring-v1."}]}
    )

    changes: list[ChangeOut] = Field(description="The changes, oldest first.")


class SeasonsOut(ReadOut):
    """A league's seasons in the store, and the read routes that take one."""

    model_config = read_config(
        {"seasons": ["2026-w1"], "endpoints": ["/api/v1/weights/seasons/{season}"]}
    )

    seasons: list[str] = Field(description="Every season's id, in the order they started.")
    endpoints: list[str] = Field(description="The read routes; put a season id in {season}.")


def answer_of(model: type[BaseModel], status: int = 200) -> dict[int | str, dict[str, Any]]:
    """Return a route's ``responses`` documenting its ``status`` answer as ``model``.

    For routes that build their JSON themselves (a `JSONResponse`): the answer is
    documented without FastAPI re-validating it; a test holds the two equal.
    """
    summary = (model.__doc__ or model.__name__).strip().splitlines()[0]
    return {status: {"model": model, "description": summary}}
