"""The weights league's read API over a store filled by a short replay (W-RNK-1, W-RNK-3,
W-RNK-4, W-SCO-3, W-SEA-3, W-MKT-2, W-HOLD-3, W-REC-3, C-1, C-9, C-10)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tradeleague.calls import Outcome
from tradeleague.clock import ReplayClock
from tradeleague.disclaimer import DISCLAIMER
from tradeleague.events import Event, EventKind, check_events
from tradeleague.events import weights as ev
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import SCORING_VERSION, Division, chart_points
from tradeleague.league.weights import ops as ops
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.reads import weights_router
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.league.weights.state import SeasonState
from tradeleague.league.weights.summary import STRATEGY_SUMMARIZED, summarize_strategy
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.types import ChatRequest, ModelReply
from tradeleague.market import synthetic_dataset
from tradeleague.money import micros_to_str
from tradeleague.store import Store, open_store

SNEAKY = "Spread out <b>evenly</b>\u200b\u202e across names."
GOOD = json.dumps({"targets": {"SYN01": 20, "SYN02": 20}, "reason": SNEAKY})


@dataclass
class Replayed:
    client: TestClient
    store: Store
    state: SeasonState
    days: list[date]


def _script(path: Path, texts: list[str]) -> str:
    path.write_text("\n".join(json.dumps({"text": t}) for t in texts) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def replayed(tmp_path: Path, sqlite_url: str) -> Iterator[Replayed]:
    dataset = synthetic_dataset(4, 40, seed=5)
    source = FrozenBarsSource(dataset)
    specs = [
        "cash=baseline:cash",
        "eq=baseline:equal_weight",
        f"sneaky=scripted:{_script(tmp_path / 's.jsonl', [GOOD] * 40)}",
        f"bad=scripted:{_script(tmp_path / 'b.jsonl', ['I like SYN01.'] * 40)}",
    ]
    parsed, agents, _ = build_agents(specs, gateway=object())  # type: ignore[arg-type]
    roster = [
        RosterEntry(name=p.name, spec=s, division=Division.PRO, prompt="Buy what rises.")
        for p, s in zip(parsed, specs, strict=True)
    ]
    roster.append(RosterEntry(name="o_cash", spec="baseline:cash", division=Division.OPEN))
    agents["o_cash"] = build_agents(["o_cash=baseline:cash"], gateway=object())[1]["o_cash"]  # type: ignore[arg-type]
    last = datetime.fromtimestamp(int(dataset[dataset.symbols[0]].times[-1]), UTC).date()
    start, end = last - timedelta(days=13), last + timedelta(days=1)
    with open_store(sqlite_url) as store:
        state = asyncio.run(
            run_season(store, source, roster, agents, season_id="s1", start=start, end=end)
        )
        app = FastAPI()
        app.include_router(
            weights_router(
                lambda: nullcontext(store),
                clock=ReplayClock(datetime.combine(end, datetime.min.time(), UTC)),
            )
        )
        days = sorted({r.hour.date() for r in state.rounds})
        yield Replayed(TestClient(app), store, state, days)


def get(r: Replayed, path: str, status: int = 200) -> dict[str, Any]:
    response = r.client.get(f"/api/v1/weights{path}")
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["disclaimer"] == DISCLAIMER  # C-1 on every root object, errors included
    return body


def test_index_and_season(replayed: Replayed) -> None:
    """W-SEA-3, C-1: the season names its scoring and prompt versions; status from the clock."""
    assert get(replayed, "")["seasons"] == ["s1"]
    season = get(replayed, "/seasons/s1")
    assert season["scoring_version"] == SCORING_VERSION
    assert season["prompt_version"]
    assert season["status"] == "ended"
    assert season["final"] is True
    assert season["joinable"] is False  # W-SEA-2
    assert season["divisions"]["pro"] == {"agents": 4, "cap": 50}
    assert season["rounds"] == len(replayed.state.rounds)
    get(replayed, "/seasons/nope", status=404)


def test_division_tables(replayed: Replayed) -> None:
    """W-RNK-1, W-RNK-3, W-RNK-4, W-SEA-3: ranked rows 1, 2, 3, unranked with reasons."""
    table = get(replayed, "/seasons/s1/tables/pro")
    assert table["scoring_version"] == SCORING_VERSION
    assert table["published_after"] == ev.iso(replayed.state.rounds[-1].hour)
    rows = table["rows"]
    assert {r["name"] for r in rows} == {"cash", "eq", "sneaky", "bad"}  # W-RNK-1: own table
    ranks = [r["rank"] for r in rows if r["rank"] is not None]
    assert ranks == list(range(1, len(ranks) + 1))
    cash = next(r for r in rows if r["name"] == "cash")
    assert cash["value"] == "10000.000000"
    assert cash["season_return"] == "0.00"
    assert cash["unranked_reason"] is None
    expected = {row.agent: row for row in replayed.state.table(Division.PRO)}
    for r in rows:
        assert r["season_return"] == str(expected[r["agent"]].season_return)
    bad = rows[-1]
    assert bad["name"] == "bad"
    assert bad["rank"] is None
    assert bad["unranked_reason"] == "fewer_than_3_decisions"
    assert bad["unranked_text"] == "fewer than three decisions this season"
    open_rows = get(replayed, "/seasons/s1/tables/open")["rows"]
    assert [(r["name"], r["rank"]) for r in open_rows] == [("o_cash", 1)]
    get(replayed, "/seasons/s1/tables/amateur", status=404)
    # C-5: each row's inference cost beside it; scripted agents and baselines call no model
    costs = table["costs"]
    assert list(costs["agents"]) == [r["agent"] for r in rows]
    assert costs["priced"] is False
    for r in rows:
        cost = costs["agents"][r["agent"]]
        assert (cost["calls"], cost["cost_usd"], cost["basis"]) == (0, "0.000000", "no_model_calls")
        assert cost["net_return"] == cost["return"] == r["season_return"]


def test_agent_page(replayed: Replayed) -> None:
    """W-SCO-3, W-SCO-1, C-10, C-9: entries, trades, a point per trading day, clean reasons."""
    page = get(replayed, "/seasons/s1/agents/sneaky")
    a = replayed.state.agents["sneaky"]
    assert page["scoring_version"] == SCORING_VERSION
    assert len(page["entries"]) == len(a.entries) == len(replayed.state.rounds)
    assert page["chart"] == [
        {"day": d.isoformat(), "value": micros_to_str(v)} for d, v in chart_points(a.entries)
    ]
    assert [p["day"] for p in page["chart"]] == [d.isoformat() for d in replayed.days]
    reason = page["entries"][0]["reason"]
    assert reason == "Spread out &lt;b&gt;evenly&lt;/b&gt; across names."  # C-10
    assert page["trades"]
    assert {t["symbol"] for t in page["trades"]} <= {"SYN01", "SYN02"}
    assert page["trades"][0]["side"] == "buy"
    assert "key" not in json.dumps(page["agent"])  # C-9: no key on any page
    assert page["cost"]["basis"] == "no_model_calls"  # C-5: a scripted agent calls no model
    assert page["pricing"]["priced"] is False
    get(replayed, "/seasons/s1/agents/nobody", status=404)


def test_market_status(replayed: Replayed) -> None:
    """W-MKT-2, W-HOLD-3: the latest round's status with its reasons, open or closed."""
    market = get(replayed, "/seasons/s1/market")
    assert market["status"] == "open"
    assert market["text"] == "Market open"
    assert market["forced"] is False  # W-RND-1: a replayed round keeps the round clock
    assert isinstance(market["open_round"], bool)
    assert set(market["prices"]) == set(replayed.state.symbols)
    hour = replayed.state.rounds[-1].hour + timedelta(hours=1)
    closed = Event(
        replayed.state.stream,
        ev.MARKET_CLOSED,
        {
            "round": ev.iso(hour),
            "read_at": ev.iso(hour),
            "reasons": ["too_many_halted", "league_paused"],
            "status": "League paused",
            "invalid": {},
        },
        hour,
    )
    replayed.store.append([closed])
    market = get(replayed, "/seasons/s1/market")
    assert market["status"] == "league_paused"
    assert market["text"] == "League paused"
    assert [r["code"] for r in market["reasons"]] == ["too_many_halted", "league_paused"]
    assert market["reasons"][0]["text"] == "more than two symbols are halted"


class _Scripted:
    """A provider answering from a script: a scripted model, not the house model."""

    name = "house"

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.requests: list[ChatRequest] = []

    async def complete(self, request: ChatRequest, api_key: str | None) -> ModelReply:
        self.requests.append(request)
        return ModelReply(outcome=Outcome.ANSWERED, text=self.texts.pop(0), latency_s=0.01)


def test_strategy_summaries_shown_under_c10(replayed: Replayed) -> None:
    """W-REC-3, C-10, C-5: the model summarises the owner's prompt through the gateway; the
    summary is stored as it came and shown as plain text, or hidden if it holds an address."""
    provider = _Scripted(
        [
            "Buys what has risen <lately>.",
            "Buys momentum; see https://pump.example.io for more.",
            "Send tips to 0x52908400098527886E0F7030069857D2E4169EE7 please.",
        ]
    )
    clock = ReplayClock(replayed.state.rounds[-1].hour + timedelta(hours=2))

    async def go(agent: str) -> None:
        gateway = Gateway([provider])
        state = ops.load_season(replayed.store, "s1")
        await summarize_strategy(
            replayed.store, clock, state, agent, gateway, provider="house", model="m"
        )

    asyncio.run(go("eq"))
    assert "Buy what rises." in provider.requests[0].messages[-1].content
    page = get(replayed, "/seasons/s1/agents/eq")
    assert page["summary"] == "Buys what has risen &lt;lately&gt;."
    assert page["summary_hidden"] is False
    for agent in ("cash", "sneaky"):
        asyncio.run(go(agent))
        page = get(replayed, f"/seasons/s1/agents/{agent}")
        assert page["summary"] is None
        assert page["summary_hidden"] is True
    stored = [
        s.event
        for s in replayed.store.events(replayed.state.stream)
        if s.event.kind in (STRATEGY_SUMMARIZED, EventKind.MODEL_CALLED)
    ]
    assert [e.kind for e in stored].count(STRATEGY_SUMMARIZED) == 3
    assert any("https://pump.example.io" in str(e.payload.get("text")) for e in stored)  # C-4
    assert check_events(stored, "weights") == []  # C-4: summaries and their calls are typed
