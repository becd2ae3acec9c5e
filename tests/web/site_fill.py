"""Fill one store with real replays of every format, for the site's tests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from urllib.parse import quote

from fastapi.testclient import TestClient

from tradeleague.accounts import Tier
from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.agents.inverse import SharedAgent
from tradeleague.agents.thesis import ThesisMirror
from tradeleague.calls import Outcome
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.thesis.baselines import ThesisView, make_baseline
from tradeleague.formats.thesis.candles import candles_of
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.formats.weights import Division
from tradeleague.league.direction.arena import Contestant
from tradeleague.league.direction.demo import direction_roster
from tradeleague.league.direction.reads import DirectionReads
from tradeleague.league.direction.replay import replay_direction
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.league.scenario.reads import leaderboard_payload
from tradeleague.league.thesis.cycle import Entrant as ThesisEntrant
from tradeleague.league.thesis.reads import ThesisReads
from tradeleague.league.thesis.replay import run_season as run_thesis_season
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.llm.gateway import Gateway
from tradeleague.market import synthetic_dataset
from tradeleague.market.calendars import NYSE, get_calendar
from tradeleague.money import qty
from tradeleague.sim import Order, Side
from tradeleague.site import create_site

XSS = "<script>alert(1)</script>"
SEASON = "site-s1"
STREAM = "site-direction"
OTHER_STREAM = "site-direction-b"
"""A second arena in the store: the site serves STREAM and reads this one at its own path."""
SLASHED = "team/a"
WEIGHTS_SLASHED = "desk/eq"
THESIS_SEASON = "site-t1"
THESIS_SLASHED = "desk/thesis"


@dataclass(slots=True)
class Hostile:
    """A direction agent whose rationale is a script tag."""

    name: str = XSS
    kind: str = "scripted"

    async def answer(self, turn: Turn) -> AgentReply:
        text = '{"direction": "up", "rationale": "<script>alert(1)</script>"}'
        return AgentReply(outcome=Outcome.ANSWERED, text=text, latency_ms=1_500)


def fill_weights(service: ScenarioService) -> None:
    dataset = synthetic_dataset(4, 30, seed=5)
    specs = [
        "cash=baseline:cash",
        "eq=baseline:equal_weight",
        "mom=baseline:momentum",
        f"{WEIGHTS_SLASHED}=baseline:equal_weight",
    ]
    parsed, agents, _ = build_agents(specs, gateway=object())  # type: ignore[arg-type]
    roster = [
        RosterEntry(name=p.name, spec=s, division=Division.PRO)
        for p, s in zip(parsed, specs, strict=True)
    ]
    roster.append(RosterEntry(name="hold", spec="baseline:buy_and_hold", division=Division.OPEN))
    agents["hold"] = build_agents(["hold=baseline:buy_and_hold"], gateway=object())[1]["hold"]  # type: ignore[arg-type]
    last = datetime.fromtimestamp(int(dataset[dataset.symbols[0]].times[-1]), UTC).date()
    start, end = last - timedelta(days=8), last + timedelta(days=1)
    asyncio.run(
        run_season(
            service.store,
            FrozenBarsSource(dataset),
            roster,
            agents,
            season_id=SEASON,
            start=start,
            end=end,
        )
    )


async def fill_direction(service: ScenarioService, stream: str = STREAM) -> None:
    preset = DirectionPreset()
    candles = synthetic_dataset(
        1, 400, seed=7, bar_size=timedelta(minutes=1), calendar="24/7", symbols=[preset.symbol]
    )
    last = candles[preset.symbol].last
    async with Gateway([]) as gateway:
        roster = direction_roster(gateway)[:3]
        hostile = Entrant(name=XSS, provider=XSS, tier="-", model="scripted:xss")
        slashed = Entrant(name=SLASHED, provider="meta", tier="-", model="scripted:slash")
        roster.append(Contestant(entrant=hostile, agent=Hostile()))
        roster.append(Contestant(entrant=slashed, agent=Hostile(name=SLASHED)))
        await replay_direction(
            service.store,
            candles,
            roster,
            start=last - timedelta(minutes=40),
            end=last,
            preset=preset,
            stream=stream,
        )


@dataclass(slots=True)
class ThesisModel:
    """A thesis model whose texts are script tags: a long and a bad symbol at the first cycle
    (the correction round follows), a short at the third; its levels sit close to the market,
    so the invalidation monitor closes them."""

    name: str = THESIS_SLASHED
    kind: str = "scripted"

    async def answer(self, turn: Turn) -> AgentReply:
        view = turn.view
        assert isinstance(view, ThesisView)
        decisions: list[dict[str, object]] = []
        if turn.key.turn == 0 and view.index == 0:
            price = Decimal(view.prices["ETH"])
            decisions = [
                _thesis_open("open_long", "ETH", price * Decimal("0.99")),
                _thesis_open("open_long", "NOPE", Decimal(1)),
            ]
        elif turn.key.turn == 0 and view.index == 2:
            price = Decimal(view.prices["SOL"])
            decisions = [_thesis_open("open_short", "SOL", price * Decimal("1.01"))]
        answer = {
            "reasoning": f"Reasoning {XSS} & more.",
            "market_context": {"overall_sentiment": "neutral", "key_factors": [XSS]},
            "decisions": decisions,
        }
        return AgentReply(outcome=Outcome.ANSWERED, text=json.dumps(answer), latency_ms=900)


def _thesis_open(action: str, symbol: str, level: Decimal) -> dict[str, object]:
    return {
        "action": action, "symbol": symbol, "percent_of_equity": 20, "confidence": 0.85,
        "invalidation_price": str(level.quantize(Decimal("0.000001"))),
        "thesis": f"Thesis {XSS}", "invalidation": f"Invalidation {XSS}",
        "rationale": f"Rationale {XSS}",
    }  # fmt: skip


def thesis_tape() -> MarketTape:
    """A synthetic tape for the thesis universe: two pairs and BTC, AAPL and SPY."""
    start = datetime(2024, 1, 1, tzinfo=UTC)
    crypto = synthetic_dataset(
        3, 6 * 60, seed=11, bar_size=timedelta(hours=4), calendar="24/7", start=start,
        symbols=["ETHUSDT", "SOLUSDT", "BTCUSDT"], volatility=0.8,
    )  # fmt: skip
    stocks = synthetic_dataset(2, 45, seed=12, start=start, symbols=["AAPL", "SPY"])
    return MarketTape(
        load_universe(),
        {s: candles_of(crypto[s]) for s in crypto.symbols},
        {s: candles_of(stocks[s]) for s in stocks.symbols},
        get_calendar(NYSE),
    )


def fill_thesis(service: ScenarioService) -> None:
    """Replay a five-day thesis season: baselines, the script-tag model and its mirror (day 2)."""
    model = SharedAgent(ThesisModel())
    agents: dict[str, Agent] = {
        "cash": BaselineAgent("cash", *make_baseline("cash")),
        "hold": BaselineAgent("hold", *make_baseline("buy-and-hold")),
        "coin_flip": BaselineAgent("coin_flip", *make_baseline("coin-flip")),
        THESIS_SLASHED: model,
        "mirror": ThesisMirror(name="mirror", source=model),
    }
    entrants = [
        ThesisEntrant(name=n, spec=n, kind=a.kind, enters=2 if n == "mirror" else 0)
        for n, a in agents.items()
    ]
    asyncio.run(
        run_thesis_season(
            service.store, thesis_tape(), entrants, agents, season_id=THESIS_SEASON,
            start=date(2024, 2, 12), end=date(2024, 2, 17), sources={"crypto": "synthetic",
            "stocks": "synthetic"},
        )
    )  # fmt: skip


def fill_scenario(service: ScenarioService) -> str:
    symbols = ("AAPL", "SPY")
    data = synthetic_dataset(len(symbols), 20, seed=7, symbols=symbols)
    found = provision_from_market(
        service,
        "syn",
        data,
        symbols,
        datetime(2024, 1, 2, tzinfo=UTC),
        datetime(2025, 1, 1, tzinfo=UTC),
        leverage_cap=1,
        allow_short=False,
    )
    account = service.authenticate(service.create_key("builder", Tier.PRO))
    for amount in ("0", "5"):
        run = str(service.create_run(account, found.id)["id"])
        if amount != "0":
            service.trade(account, run, [Order("SPY", Side.BUY, qty(amount))])
        while not service.step(account, run)["done"]:
            pass
        service.publish(account, run)
    return found.id


def fill_all(service: ScenarioService) -> str:
    """Replay a weights season, two arenas' rounds, a thesis season and scenario runs.

    Returns the scenario id.
    """
    fill_weights(service)
    asyncio.run(fill_direction(service))
    asyncio.run(fill_direction(service, OTHER_STREAM))
    fill_thesis(service)
    return fill_scenario(service)


DOCS_DRAWN = {"/docs": "#swagger-ui .opblock", "/redoc": "#api .api-content h2"}
"""The offline API docs pages, each with what shows once its script has drawn the API."""


def site_pages(service: ScenarioService, scenario: str) -> list[str]:
    """Return every page of a site filled by ``fill_all`` (``scenario``: its scenario id)."""
    rounds = DirectionReads(service.store, stream=STREAM).rounds(limit=1)["rounds"]
    runs = leaderboard_payload(service, scenario, "return")["entries"]
    thesis_agents = [r["name"] for r in ThesisReads(service.store).board(THESIS_SEASON)["rows"]]
    return [
        "/",
        "/weights",
        f"/weights/{SEASON}",
        f"/weights/{SEASON}/market",
        f"/weights/{SEASON}/agents/cash",
        f"/weights/{SEASON}/agents/{quote(WEIGHTS_SLASHED, safe='')}",
        "/direction",
        "/direction/visitors",
        f"/direction/arenas/{OTHER_STREAM}",
        f"/direction/models/{quote(SLASHED, safe='')}",
        f"/direction/models/{quote(XSS, safe='')}",
        f"/direction/rounds/{rounds[0]['round']}",
        "/scenarios",
        f"/scenarios/{scenario}",
        f"/runs/{runs[0]['run_id']}",
        "/methodology/weights",
        "/methodology/direction",
        "/methodology/scenario",
        "/thesis",
        f"/thesis/{THESIS_SEASON}",
        *(f"/thesis/{THESIS_SEASON}/agents/{quote(n, safe='')}" for n in thesis_agents),
        "/methodology/thesis",
    ]


def filled_client(service: ScenarioService) -> Iterator[TestClient]:
    """Yield a test client on a site over ``service``, filled by `fill_all` (a fixture's body)."""
    with TestClient(create_site(service, direction_stream=STREAM)) as client:
        yield client
