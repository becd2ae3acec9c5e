"""The arena restarted on its own log goes on exactly (C-4, C-8, D-SEA-1, D-TRD-3, D-SKP-1).

An interrupted ``replay_direction`` run again on the same store plays only the
rounds not recorded and ends with the same log as an uninterrupted run: same
seasons (the floor ends some here), balances, trade ids, scripted answers.
A round cut mid-way (live writes events as they happen) is voided once on
restart, stakes back; a store holding another replay is refused.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from direction_helpers import START  # type: ignore[import-not-found]

from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.agents.scripted import ScriptedAgent
from tradeleague.errors import ConfigError
from tradeleague.events import Event
from tradeleague.formats.direction import DirectionPreset
from tradeleague.formats.direction.baselines import direction_baseline
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.publish import report_payload
from tradeleague.formats.direction.restart import CUT_DETAIL
from tradeleague.formats.direction.skips import LEAGUE_FAULT
from tradeleague.league.direction import Contestant
from tradeleague.league.direction.replay import replay_direction
from tradeleague.market import Dataset
from tradeleague.money import usd
from tradeleague.store import open_store

SMALL = DirectionPreset(start_balance=usd(250), season_floor=usd(200))
"""Five net losses end a season (the floor), so a replay spans several seasons."""

END = START + timedelta(hours=3)


class Stop(Exception):
    """Stands for Ctrl-C after a round was recorded."""


def _roster(script: Path) -> list[Contestant]:
    def entrant(name: str) -> Entrant:
        return Entrant(name=name, provider="house", tier="ECO", model=name)

    out = [Contestant(entrant=entrant("script"), agent=ScriptedAgent.from_file("script", script))]
    for name in ("coin_flip", "momentum", "up"):
        decide: Any
        decide, render = direction_baseline(name, seed=3)
        out.append(Contestant(entrant=entrant(name), agent=BaselineAgent(name, decide, render)))
    return out


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.jsonl"
    lines = [
        json.dumps({"text": json.dumps({"direction": d, "rationale": f"line {i}"})})
        for i, d in enumerate(["down", "down", "up", "down", "up"] * 5)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _replay(url: str, data: Dataset, script: Path, stop_after: int | None = None) -> Any:
    def on_round(done: int, total: int, rid: str) -> None:
        if done == stop_after:
            raise Stop

    with open_store(url) as store:
        board = asyncio.run(
            replay_direction(
                store, data, _roster(script), start=START, end=END, preset=SMALL,
                on_round=on_round,
            )
        )  # fmt: skip
        log = [
            (s.event.kind, s.event.payload, s.event.occurred_at) for s in store.events("direction")
        ]
    return report_payload(board), log


def test_direction_replay_resumes_to_the_uninterrupted_log(
    synthetic_btc: Dataset, script: Path, tmp_path: Path
) -> None:
    """C-4: interrupted twice, the same replay resumes to the same events and REPORT."""
    whole_report, whole_log = _replay(f"sqlite:///{tmp_path}/whole.db", synthetic_btc, script)
    seasons = {p["season"] for _, p, _ in whole_log}
    assert len(seasons) >= 2, "the floor must end a season for this test to mean something"
    url = f"sqlite:///{tmp_path}/cut.db"
    for stop in (5, 19):
        with pytest.raises(Stop):
            _replay(url, synthetic_btc, script, stop_after=stop)
    report, log = _replay(url, synthetic_btc, script)
    assert log == whole_log
    assert report == whole_report


def test_direction_replay_refuses_another_replay(
    synthetic_btc: Dataset, script: Path, tmp_path: Path
) -> None:
    """A store holding another span in the stream is refused, in one sentence."""
    url = f"sqlite:///{tmp_path}/r.db"
    with pytest.raises(Stop):
        _replay(url, synthetic_btc, script, stop_after=2)
    with open_store(url) as store, pytest.raises(ConfigError, match="different replay"):
        asyncio.run(
            replay_direction(
                store, synthetic_btc, _roster(script), start=START + timedelta(minutes=5),
                end=END, preset=SMALL,
            )
        )  # fmt: skip


def test_direction_cut_round_is_voided_once_on_restart(
    synthetic_btc: Dataset, script: Path, tmp_path: Path
) -> None:
    """D-SKP-1, D-TRD-3: a round cut after its trades were placed is voided, stakes back."""
    _, whole_log = _replay(f"sqlite:///{tmp_path}/whole.db", synthetic_btc, script)
    rounds = [p["round"] for k, p, _ in whole_log if k == "RoundStarted"]
    cut_round = rounds[3]
    cut: list[Event] = []
    for kind, payload, at in whole_log:
        if payload.get("round") == cut_round and kind in ("TradeSettled", "RoundFinished"):
            break
        cut.append(Event("direction", kind, payload, at))
    before = next(
        p["balances"] for k, p, _ in reversed(whole_log[: len(cut)]) if k == "RoundFinished"
    )
    url = f"sqlite:///{tmp_path}/cut.db"
    with open_store(url) as store:
        store.append(cut)
        assert any(e.kind == "TradePlaced" for e in cut[-6:])
    with open_store(url) as store:
        asyncio.run(
            replay_direction(
                store, synthetic_btc, _roster(script), start=START, end=END, preset=SMALL
            )
        )
        log = [(s.event.kind, s.event.payload) for s in store.events("direction")]
    of_cut = [(k, p) for k, p in log if p.get("round") == cut_round]
    assert [k for k, _ in of_cut].count("RoundStarted") == 1
    (voided,) = [p for k, p in of_cut if k == "RoundVoided"]
    assert voided["reason"] == LEAGUE_FAULT
    assert CUT_DETAIL in str(voided["detail"])
    (finished,) = [p for k, p in of_cut if k == "RoundFinished"]
    assert finished["void"] is True
    assert finished["balances"] == before  # every stake of the cut round is back
    assert [p["round"] for k, p in log if k == "RoundStarted"] == rounds
