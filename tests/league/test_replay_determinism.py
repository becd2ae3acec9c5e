"""The same replay writes the same events and ends on the same chain head (C-4, C-11).

Each replayed event's id derives from its stream and its place in it, and its
time from the replay clock, so a replay command run twice with the same inputs
into fresh databases writes byte-identical logs, on SQLite and on PostgreSQL;
and a weights replay stopped after some rounds and run again ends where an
uninterrupted one does.

The resumed weights season includes the coin-flip baseline: its generator is
rebuilt from the record (issue 10, exact resume), so its draws after the stop
are the uninterrupted run's. A resumed *direction* replay, and resumes after a
real ``kill -9``, are in ``tests/chaos/test_chaos_replay.py``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from datetime import date, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.market import load_dataset
from tradeleague.store import ChainHead, open_store, verify

pytestmark = pytest.mark.shared_data

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = "tests/pinned/scripts"
SYMBOLS = ["AAPL", "MSFT", "NVDA", "QQQ", "SGOV", "SPY", "USO"]
WEIGHTS_AGENTS = [
    "cash=baseline:cash",
    "hold=baseline:buy_and_hold",
    "equal=baseline:equal_weight",
    "momentum=baseline:momentum",
    "coin=baseline:coin_flip",
    f"s_valid=scripted:{SCRIPTS}/weights_valid.jsonl",
    f"s_mixed=scripted:{SCRIPTS}/weights_mixed.jsonl",
]
DIRECTION_AGENTS = [
    "up=baseline:up",
    "down=baseline:down",
    "momentum=baseline:momentum",
    "coin=baseline:coin_flip",
    f"s_mixed=scripted:{SCRIPTS}/direction_mixed.jsonl",
]


@pytest.fixture(params=["sqlite", "postgres"])
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], str]]:
    """Make fresh, empty databases on one backend (each PostgreSQL one dropped at the end)."""
    made: list[str] = []
    if request.param == "sqlite":

        def sqlite() -> str:
            made.append(f"sqlite:///{tmp_path / f'db{len(made)}.db'}")
            return made[-1]

        yield sqlite
        return
    server: str = request.getfixturevalue("pg_server_url")
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    base = server.rpartition("/")[0]

    def postgres() -> str:
        name = f"tl_{uuid.uuid4().hex[:16]}"
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        made.append(name)
        return f"{base}/{name}"

    try:
        yield postgres
    finally:
        with admin.connect() as conn:
            for name in made:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _log(url: str) -> tuple[ChainHead, list[tuple[int, str, str, str, str, str]]]:
    """Return the chain head and every stored event's bytes, in order."""
    with open_store(url) as store:
        assert verify(store).ok
        rows = [
            (s.seq, str(s.event.id), s.event.stream, s.event.kind, s.event.payload_json, s.hash)
            for s in store.events()
        ]
        return store.head(), rows


def _cli(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # scripted paths are relative to the repository root
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output


def _agent_args(specs: list[str]) -> list[str]:
    return [arg for spec in specs for arg in ("--agent", spec)]


def test_weights_replay_twice_into_fresh_databases_ends_on_one_head(
    shared_data: Path, fresh_url: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """C-11: ``replay weights`` run twice writes byte-identical events, the same head."""
    logs = []
    for _ in range(2):
        url = fresh_url()
        _cli(
            [
                "replay", "weights", "--market", str(shared_data / "us_equities_daily"),
                "--symbols", ",".join(SYMBOLS), "--start", "2026-07-06", "--end", "2026-07-11",
                *_agent_args(WEIGHTS_AGENTS), "--db", url,
            ],
            monkeypatch,
        )  # fmt: skip
        logs.append(_log(url))
    (head_a, rows_a), (head_b, rows_b) = logs
    assert head_a.seq > 0
    assert rows_a == rows_b
    assert head_a == head_b


def test_direction_replay_twice_into_fresh_databases_ends_on_one_head(
    shared_data: Path, fresh_url: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """C-11: ``replay direction`` run twice writes byte-identical events, the same head."""
    logs = []
    for _ in range(2):
        url = fresh_url()
        _cli(
            [
                "replay", "direction", "--market", str(shared_data / "crypto_1m"),
                "--start", "2025-10-01T06:00Z", "--end", "2025-10-01T06:30Z",
                *_agent_args(DIRECTION_AGENTS), "--db", url,
            ],
            monkeypatch,
        )  # fmt: skip
        logs.append(_log(url))
    (head_a, rows_a), (head_b, rows_b) = logs
    assert head_a.seq > 0
    assert rows_a == rows_b
    assert head_a == head_b


class _Stop(Exception):
    """Stands in for Ctrl-C after some rounds."""


def _weights_season(url: str, data: Path, stop_after: int | None) -> None:
    """Replay a six-round weights season into ``url``, raising `_Stop` after ``stop_after``."""
    source = FrozenBarsSource(load_dataset(data / "us_equities_daily", symbols=SYMBOLS))

    def on_round(index: int, total: int, hour: datetime) -> None:
        if stop_after is not None and index + 1 == stop_after:
            raise _Stop

    async def play() -> None:
        parsed, agents, gateway = build_agents(WEIGHTS_AGENTS, environ={})
        roster = [
            RosterEntry(name=p.name, spec=s, division=Division.OPEN)
            for p, s in zip(parsed, WEIGHTS_AGENTS, strict=True)
        ]
        try:
            with open_store(url) as store:
                await run_season(
                    store,
                    source,
                    roster,
                    agents,
                    season_id="resume-check",
                    start=date(2026, 7, 6),
                    end=date(2026, 7, 14),
                    on_round=on_round,
                )
        finally:
            if gateway is not None:
                await gateway.aclose()

    asyncio.run(play())


def test_weights_replay_resumed_ends_where_an_uninterrupted_one_does(
    shared_data: Path, fresh_url: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """C-11: stopped after 2 of 6 rounds and run again (the coin flip included), the season
    ends on the same head."""
    monkeypatch.chdir(ROOT)
    whole = fresh_url()
    _weights_season(whole, shared_data, None)
    resumed = fresh_url()
    with pytest.raises(_Stop):
        _weights_season(resumed, shared_data, 2)
    with open_store(resumed) as store:
        stopped_at = store.head().seq
    _weights_season(resumed, shared_data, None)
    head_whole, rows_whole = _log(whole)
    head_resumed, rows_resumed = _log(resumed)
    assert 0 < stopped_at < head_whole.seq
    assert rows_resumed == rows_whole
    assert head_resumed == head_whole
