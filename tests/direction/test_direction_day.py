"""A replayed day: 288 rounds, 15 fake-provider models over HTTP, every skip class (D-*).

The 15 models (5 providers x 3 tiers, D-SCO-5) answer through the real
gateway and a real OpenAI-compatible HTTP server (the fake provider). Answers
are drawn per (model, round) from a hash, so the day is reproducible:
mostly plain JSON, some in prose or code fences (valid: D-ASK-3), some
refusals and uppercase directions (``invalid``). Latency is simulated
(``SimulatedLatency``), so the replay takes seconds while ``timeout`` (over
45 s) and ``late`` (an ask delayed 250 s on two rounds) fall as they would
live; the paper broker rejects some orders and loses some closes; in two
rounds every model times out (``void``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from direction_helpers import START  # type: ignore[import-not-found]

from tradeleague.agents.base import Turn
from tradeleague.agents.latency import SimulatedLatency
from tradeleague.agents.llm import LlmAgent
from tradeleague.broker import PaperBroker
from tradeleague.feeds.candles import CandleSource
from tradeleague.formats.direction import Entrant, SkipReason
from tradeleague.formats.direction.publish import board_payload, model_log_payload, pct
from tradeleague.league.direction import Contestant, load_ledger, replay_direction
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import preset
from tradeleague.market import Dataset
from tradeleague.money import usd
from tradeleague.store import Store
from tradeleague.testing.fake_script import REFUSAL_TEXT

PROVIDERS = ("anthropic", "openai", "kimi", "qwen", "deepseek")
TIERS = ("TOP", "MID", "ECO")
KEY = "sk-fake-day"
VOID_ROUNDS = (100, 200)
LATE_ROUNDS = (50, 51)
ROUNDS = 288


def _draw(*parts: object) -> int:
    text = "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def _answer(model: str, index: int) -> str:
    """Return the raw text ``model`` sends in round ``index`` (drawn, reproducible)."""
    roll = _draw(model, index) % 100
    direction = "up" if roll % 2 else "down"
    body = json.dumps({"direction": direction, "rationale": f"Short call {roll}."})
    if roll < 3:
        return REFUSAL_TEXT
    if roll < 5:
        return body.replace(f'"{direction}"', f'"{direction.upper()}"')
    if roll < 15:
        return f"Sure! Here is my answer:\n{body}\nGood luck!"
    if roll < 25:
        return f"```json\n{body}\n```"
    return body


@contextlib.contextmanager
def _fake_server(script: dict[str, Any], tmp: Path) -> Iterator[str]:
    """Run the fake provider in its own process (its own interpreter, so no GIL contention)."""
    path = tmp / "script.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    command = [sys.executable, "-m", "tradeleague.testing.fake_provider", "--port", "0"]
    command += ["--script", str(path), "--require-key", KEY]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline().strip()
            assert line.startswith("listening on "), line
            yield line.removeprefix("listening on ")
        finally:
            process.terminate()
            process.wait(timeout=10)


def _round_index(turn: Turn) -> int:
    opened = datetime.strptime(turn.key.round, "%Y%m%dT%H%M%z")
    return int((opened - START) / timedelta(minutes=5))


def _latency(turn: Turn) -> int:
    if _round_index(turn) in VOID_ROUNDS:
        return 60_000
    roll = _draw("latency", turn.key.text)
    if roll % 100 < 4:
        return 46_000 + roll % 10_000
    return 1_500 + roll % 28_500


@pytest.fixture
async def roster(tmp_path: Path) -> AsyncIterator[list[Contestant]]:
    models = [f"{p}/{p}-{t.lower()}-2026" for p in PROVIDERS for t in TIERS]
    script = {"models": {m: {"texts": [_answer(m, i) for i in range(ROUNDS)]} for m in models}}
    with _fake_server(script, tmp_path) as url:
        provider = OpenAICompatProvider(
            preset("openrouter").with_base_url(url),
            max_connections=64,
            environ={"OPENROUTER_API_KEY": KEY},
        )
        async with Gateway([provider]) as gateway:
            contestants = []
            for p in PROVIDERS:
                for t in TIERS:
                    model = f"{p}/{p}-{t.lower()}-2026"
                    agent = LlmAgent(
                        name=f"{p}-{t.lower()}", model=model, provider="openrouter", gateway=gateway
                    )
                    contestants.append(
                        Contestant(
                            entrant=Entrant(name=agent.name, provider=p, tier=t, model=model),
                            agent=SimulatedLatency(agent, _latency),
                        )
                    )
            yield contestants


def _broker(candles: CandleSource) -> PaperBroker:
    return PaperBroker(
        candles,
        reject=lambda order: "BROKER_BUSY" if _draw("reject", order.client_ref) % 60 == 0 else None,
        lose_close=lambda trade_id, order: _draw("lose", order.client_ref) % 70 == 0,
    )


def _ask_lag(open_at: datetime) -> timedelta:
    index = int((open_at - START) / timedelta(minutes=5))
    return timedelta(seconds=250) if index in LATE_ROUNDS else timedelta(0)


@pytest.mark.slow
async def test_direction_replayed_day_every_skip_class_and_boards_from_logs(
    store: Store, btc: Dataset, roster: list[Contestant]
) -> None:
    """D-SKP-1, D-PUB-4, D-SCO-5, D-RND-3, D-RND-4, D-TRD-3: a full day, boards from logs alone."""
    board = await replay_direction(
        store,
        btc,
        roster,
        start=START,
        end=START + timedelta(days=1),
        broker=_broker,
        ask_lag=_ask_lag,
    )
    assert board.rounds == 288
    assert board.void_rounds == len(VOID_ROUNDS)
    seen = {code for row in board.models for code in row.skips}
    assert seen == {s.value for s in SkipReason}
    assert len(board.providers) == 5
    assert len(board.tiers) == 3

    # D-PUB-4: re-derive every row from the published logs alone.
    season = load_ledger(store).current
    assert season is not None
    published = board_payload(board)
    logs: dict[str, dict[str, Any]] = {e.name: model_log_payload(season, e) for e in season.roster}
    baseline = usd(50_000)
    derived: dict[str, int] = {}
    for row in published["models"]:
        rows = logs[row["name"]]["rows"]
        assert len(rows) == 288
        balance = usd(rows[-1]["balance_after"])
        derived[row["name"]] = balance
        assert row["balance"] == rows[-1]["balance_after"]
        assert row["roi"] == pct(Fraction(balance - baseline, baseline))
        results = [r["result"] for r in rows]
        assert row["wins"] == results.count("win")
        assert row["losses"] == results.count("loss")
        decided = row["wins"] + row["losses"]
        if decided:
            assert row["hit_rate"] == pct(Fraction(row["wins"], decided))
        due = sum(1 for r in results if r != "void")
        settled = sum(1 for r in results if r in ("win", "loss", "draw"))
        assert row["answer_rate"] == pct(Fraction(settled, due))
        # the log's own arithmetic: each settled row's P&L moved the balance it shows
        for r in rows:
            if r["result"] == "win":
                assert usd(r["pnl"]) == usd(10) * r["payout_ppm"] // 1_000_000
    for group in published["providers"]:
        total = sum(derived[m] for m in group["members"])
        assert (
            group["balance"]
            == logs[group["members"][0]]["rows"][0]["balance_after"][:0]
            + str(total // 1_000_000)
            + "."
            + f"{total % 1_000_000:06d}"
        )
        assert group["roi"] == pct(Fraction(total - 3 * baseline, 3 * baseline))
    ranks = [r["rank"] for r in published["models"]]
    assert ranks == list(range(1, 16))
