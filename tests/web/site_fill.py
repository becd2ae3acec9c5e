"""Fill one store with real replays of all three formats, for the site's tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

from tradeleague.agents.base import AgentReply, Turn
from tradeleague.api.reads import leaderboard_payload
from tradeleague.api.service import ScenarioService, Tier, provision_from_market
from tradeleague.calls import Outcome
from tradeleague.cli.demo import direction_roster
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.weights import Division
from tradeleague.league.direction.arena import Contestant
from tradeleague.league.direction.replay import replay_direction
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.llm.gateway import Gateway
from tradeleague.market import synthetic_dataset
from tradeleague.money import qty
from tradeleague.sim import Order, Side
from tradeleague.web.direction_api import DirectionReads

XSS = "<script>alert(1)</script>"
SEASON = "site-s1"
STREAM = "site-direction"
SLASHED = "team/a"
WEIGHTS_SLASHED = "desk/eq"


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


async def _direction(service: ScenarioService) -> None:
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
            stream=STREAM,
        )


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
    """Replay a weights season, direction rounds and scenario runs; return the scenario id."""
    fill_weights(service)
    asyncio.run(_direction(service))
    return fill_scenario(service)


def site_pages(service: ScenarioService, scenario: str) -> list[str]:
    """Return every page of a site filled by ``fill_all`` (``scenario``: its scenario id)."""
    rounds = DirectionReads(service.store, stream=STREAM).rounds(limit=1)["rounds"]
    runs = leaderboard_payload(service, scenario, "return")["entries"]
    return [
        "/",
        "/weights",
        f"/weights/{SEASON}",
        f"/weights/{SEASON}/market",
        f"/weights/{SEASON}/agents/cash",
        f"/weights/{SEASON}/agents/{quote(WEIGHTS_SLASHED, safe='')}",
        "/direction",
        "/direction/visitors",
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
        "/methodology/thesis",
    ]
