"""The thesis driver live: crypto through ccxt and stocks through yfinance, from local servers.

A local Binance (``testing/binance.py``) and a local Yahoo (``testing/yahoo.py``)
serve the frozen folders in their providers' protocols; the host's thesis
driver, built live on a clock set to a cycle, reads them through its
``LiveTape`` and plays the cycle. What it shows and does equals the replay's
cycle over the same folders: the same screen, RSI and prices, the same fills.
Played on to its next cycle, the live season's board has the no-skill null's
line from its record alone (a live season has no folders to read again), the
replay's line to the micro-dollar.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from tradeleague.clock import ReplayClock
from tradeleague.events import EventKind
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.candles import candles_of
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.host.leaguefile import HostAgent
from tradeleague.host.reads import season_report
from tradeleague.league.thesis.agents import build_roster
from tradeleague.league.thesis.config import ThesisConfig
from tradeleague.league.thesis.data import load_tape
from tradeleague.league.thesis.driver import ThesisDriver
from tradeleague.league.thesis.null import season_null
from tradeleague.league.thesis.replay import run_season
from tradeleague.league.thesis.report import build_report
from tradeleague.llm.gateway import Gateway
from tradeleague.market.calendars import CONTINUOUS, NYSE
from tradeleague.market.loader import load_dataset
from tradeleague.store import open_store
from tradeleague.testing.binance import frozen_klines_app
from tradeleague.testing.server import serve_asgi
from tradeleague.testing.yahoo import YahooFake, keep_yfinance_caches_in, yahoo_app

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

START, END = date(2025, 3, 3), date(2025, 3, 5)
CYCLE = datetime(2025, 3, 3, 16, tzinfo=UTC)
AGENTS = (HostAgent(name="cash", spec="baseline:cash"),
          HostAgent(name="hold", spec="baseline:buy-and-hold"))  # fmt: skip


@pytest.fixture(scope="module")
def providers(
    shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, list[str], YahooFake]]:
    """Binance and Yahoo on loopback, serving the universe from the frozen folders."""
    keep_yfinance_caches_in(tmp_path_factory.mktemp("yfinance"))
    universe = load_universe()
    pairs = [*universe.crypto, universe.crypto_benchmark]
    crypto = load_dataset(shared_data / "crypto_4h", symbols=pairs, calendar=CONTINUOUS)
    names = [*universe.stocks, universe.stock_benchmark]
    files = {p.name.split(".csv")[0] for p in (shared_data / "us_equities_daily").iterdir()}
    stocks = load_dataset(
        shared_data / "us_equities_daily", symbols=[s for s in names if s in files], calendar=NYSE
    )
    seen: list[str] = []
    yahoo = YahooFake(candles={s: candles_of(stocks[s]) for s in stocks.symbols})
    binance = frozen_klines_app({s: candles_of(crypto[s]) for s in crypto.symbols}, seen)
    with serve_asgi(binance) as binance_url, serve_asgi(yahoo_app(yahoo)) as yahoo_url:
        yield binance_url, yahoo_url, seen, yahoo


async def _replayed_cycle(data: Path, db: str) -> list[tuple[str, dict[str, object]]]:
    tape = load_tape(load_universe(), data / "crypto_4h", data / "us_equities_daily")
    entrants, agents = build_roster([f"{a.name}={a.spec}" for a in AGENTS], [], Gateway({}))
    with open_store(db) as store:
        await run_season(
            store, tape, entrants, agents, season_id="L1", start=START, end=END,
            sources={"crypto": "x", "stocks": "y"},
        )  # fmt: skip
        events = [s.event for s in store.events(tev.season_stream("L1"))]
    first_cycle = [e for e in events if e.occurred_at == CYCLE]
    return [(e.kind, dict(e.payload)) for e in first_cycle]


async def test_live_thesis_driver_plays_a_cycle_as_the_replay_t_uni_2(
    shared_data: Path, tmp_path: Path, providers: tuple[str, str, list[str], YahooFake]
) -> None:
    """T-UNI-2, T-CYC-1..3: live Binance and Yahoo feeds give the replay's picture and fills."""
    binance_url, yahoo_url, seen, yahoo = providers
    config = ThesisConfig(
        season="L1", start=START, end=END, agents=AGENTS, api_base=binance_url,
        yahoo_base=yahoo_url,
    )  # fmt: skip
    clock = ReplayClock(datetime(2025, 3, 3, 16, 0, 2, tzinfo=UTC))  # just after the cycle
    with open_store(f"sqlite:///{tmp_path / 'live.db'}") as store:
        driver = ThesisDriver(store, config, clock=clock)
        try:
            assert driver.slots(CYCLE, datetime(2025, 3, 4, tzinfo=UTC)) == [CYCLE]
            assert not driver.played(CYCLE)
            events = await driver.play(CYCLE)
            assert driver.played(CYCLE)
        finally:
            await driver.aclose()
        opening = next(iter(store.events(tev.season_stream("L1")))).event
    assert opening.payload["replay"] is False
    assert opening.payload["sources"] == {"crypto": binance_url, "stocks": yahoo_url}
    live = [(e.kind, dict(e.payload)) for e in events]
    replayed = await _replayed_cycle(shared_data, f"sqlite:///{tmp_path / 'replay.db'}")
    picture = next(p for k, p in live if k == EventKind.ROUND_STARTED)
    assert picture == next(p for k, p in replayed if k == EventKind.ROUND_STARTED)
    screen = picture["screen"]
    assert isinstance(screen, dict)
    assert screen["crypto"]
    assert screen["stocks"]
    judged = [json.dumps(p, sort_keys=True) for k, p in live if k == tev.ATTEMPT_JUDGED]
    assert judged == [json.dumps(p, sort_keys=True) for k, p in replayed if k == tev.ATTEMPT_JUDGED]
    assert [k for k, _ in live] == [k for k, _ in replayed]
    # Both providers were asked through their protocols: paged klines, the chart with a crumb.
    assert sum("symbol=ETHUSDT" in s for s in seen) >= 2
    assert any(s.startswith("GET /v8/finance/chart/BRK-B?") for s in yahoo.seen)


async def test_live_thesis_season_has_the_null_line_from_its_record_st_2(
    shared_data: Path, tmp_path: Path, providers: tuple[str, str, list[str], YahooFake]
) -> None:
    """ST-2, T-MON-1: a live season's record holds the null's prices; its line is the replay's."""
    binance_url, yahoo_url, _, _ = providers
    agents = (*AGENTS, HostAgent(name="coin", spec="baseline:coin-flip"))
    config = ThesisConfig(
        season="L2", start=START, end=END, agents=agents, api_base=binance_url,
        yahoo_base=yahoo_url,
    )  # fmt: skip
    second = datetime(2025, 3, 4, 16, tzinfo=UTC)
    clock = ReplayClock(datetime(2025, 3, 3, 16, 0, 2, tzinfo=UTC))
    with open_store(f"sqlite:///{tmp_path / 'live.db'}") as store:
        driver = ThesisDriver(store, config, clock=clock)
        try:
            live = await driver.play(CYCLE)
            clock.set(datetime(2025, 3, 4, 16, 0, 2, tzinfo=UTC))
            live += await driver.play(second)
        finally:
            await driver.aclose()
        report = season_report(store, "L2")
    tape = load_tape(load_universe(), shared_data / "crypto_4h", shared_data / "us_equities_daily")
    entrants, built = build_roster([f"{a.name}={a.spec}" for a in agents], [], Gateway({}))
    with open_store(f"sqlite:///{tmp_path / 'replay.db'}") as store:
        state = await run_season(
            store, tape, entrants, built, season_id="L2", start=START, end=END,
            sources={"crypto": "x", "stocks": "y"},
        )  # fmt: skip
    recorded = [dict(e.payload) for e in live if e.kind == tev.NULL_PRICES_READ]
    assert recorded == [state.null_prices[str(p["round"])] for p in recorded]
    assert len(recorded) == 2
    assert recorded[1]["checks"]  # the coin's pick of the first cycle, at every check since
    luck = report["luckiest_of_n"]
    assert luck is not None
    assert luck == build_report(state, season_null(state, tape, len(agents)))["luckiest_of_n"]
    assert luck["agents"] == len(agents)
    assert luck["cycles"] == 2
