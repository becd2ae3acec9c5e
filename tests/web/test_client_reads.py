"""The client library reads the leagues' boards, seasons, agents and logs (issue 29 item 4).

A store filled with every format is served over real HTTP; the sync and the
async client read each board with their typed methods, and each answer is the
route's own JSON with exactly the fields its `TypedDict` and its documented
model name.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, get_type_hints
from urllib.parse import quote

import pytest
from pydantic import BaseModel

from tradeleague import client as lib
from tradeleague.client import AsyncScenarioClient, NotFoundError, ScenarioClient
from tradeleague.clock import ReplayClock
from tradeleague.league.bodies import ReadOut, SeasonsOut
from tradeleague.league.direction.models import DirectionBoardsOut, ModelLogOut
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.thesis.models import ThesisAgentOut, ThesisBoardOut
from tradeleague.league.weights.models import WeightsAgentOut, WeightsTableOut
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.testing.server import serve_asgi
from tradeleague.web.ratings import RatingOut
from web import patient  # type: ignore[import-not-found]
from web.site_fill import (  # type: ignore[import-not-found]
    SEASON,
    SLASHED,
    STREAM,
    THESIS_SEASON,
    THESIS_SLASHED,
    WEIGHTS_SLASHED,
    fill_all,
)

# (method, its arguments, the route it reads, its TypedDict, the documented model)
_READS: list[tuple[str, tuple[str, ...], str, type[Any], type[BaseModel]]] = [
    ("weights_seasons", (), "/weights", lib.Seasons, SeasonsOut),
    (
        "weights_table",
        (SEASON, "pro"),
        f"/weights/seasons/{SEASON}/tables/pro",
        lib.WeightsTable,
        WeightsTableOut,
    ),
    (
        "weights_agent",
        (SEASON, WEIGHTS_SLASHED),
        f"/weights/seasons/{SEASON}/agents/{quote(WEIGHTS_SLASHED, safe='')}",
        lib.WeightsAgent,
        WeightsAgentOut,
    ),
    ("thesis_seasons", (), "/thesis", lib.Seasons, SeasonsOut),
    ("thesis_board", (THESIS_SEASON,), f"/thesis/{THESIS_SEASON}", lib.ThesisBoard, ThesisBoardOut),
    (
        "thesis_agent",
        (THESIS_SEASON, THESIS_SLASHED),
        f"/thesis/{THESIS_SEASON}/agents/{quote(THESIS_SLASHED, safe='')}",
        lib.ThesisAgent,
        ThesisAgentOut,
    ),
    ("direction_boards", (), "/direction/boards", lib.DirectionBoards, DirectionBoardsOut),
    (
        "model_log",
        (SLASHED,),
        f"/direction/models/{quote(SLASHED, safe='')}/log",
        lib.ModelLog,
        ModelLogOut,
    ),
    ("rating", ("weights",), "/ratings/weights", lib.Rating, RatingOut),
]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('client_reads') / 'site.db'}"
    service = ScenarioService(open_store(url), ReplayClock(datetime(2026, 3, 10, tzinfo=UTC)))
    fill_all(service)
    with serve_asgi(create_site(service, direction_stream=STREAM)) as served:
        yield served
    service.store.close()


def _fields(model: type[BaseModel]) -> set[str]:
    return set(model.model_fields) | set(ReadOut.model_fields)


@pytest.mark.parametrize(("method", "args", "route", "shape", "model"), _READS)
def test_each_typed_read_is_the_routes_answer(
    base: str,
    method: str,
    args: tuple[str, ...],
    route: str,
    shape: type[Any],
    model: type[BaseModel],
) -> None:
    """Sync: the method's answer is the route's JSON; its TypedDict names the model's fields."""
    raw = patient.get(f"{base}/api/v1{route}", timeout=30).json()
    with ScenarioClient(base) as api:
        got = getattr(api, method)(*args)
    assert got == raw
    assert set(get_type_hints(shape)) == _fields(model)
    assert set(raw) <= set(get_type_hints(shape))


async def test_the_async_client_reads_the_same(base: str) -> None:
    """Async: every typed read answers what the sync one does; a missing season is NotFound."""
    async with AsyncScenarioClient(base) as api:
        with ScenarioClient(base) as sync:
            for method, args, *_ in _READS:
                assert await getattr(api, method)(*args) == getattr(sync, method)(*args), method
        with pytest.raises(NotFoundError) as missing:
            await api.thesis_board("no-such-season")
    assert missing.value.status == 404
    assert "no-such-season" in missing.value.message
