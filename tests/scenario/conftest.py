"""Fixtures for the scenario benchmark: a service on a fresh store, a clock, keys, a client."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from tradeleague.accounts import Tier
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import Scenario, ScenarioService, provision_from_market
from tradeleague.league.scenario.routes import create_app
from tradeleague.market import synthetic_dataset
from tradeleague.store import open_store
from tradeleague.testing.server import serve_asgi

START = datetime(2024, 1, 2, tzinfo=UTC)
END = datetime(2025, 1, 1, tzinfo=UTC)
SYMBOLS = ("AAPL", "SPY", "TSLA")


@pytest.fixture
def clock() -> ReplayClock:
    return ReplayClock(datetime(2026, 3, 10, 12, 0, tzinfo=UTC))


def make_service(url: str, clock: ReplayClock) -> ScenarioService:
    return ScenarioService(open_store(url), clock)


@pytest.fixture
def service(sqlite_url: str, clock: ReplayClock) -> Iterator[ScenarioService]:
    svc = make_service(sqlite_url, clock)
    yield svc
    svc.store.close()


def synthetic_scenario(
    svc: ScenarioService,
    *,
    bars: int = 40,
    leverage: int = 2,
    shorting: bool = True,
    name: str = "syn",
    seed: int = 7,
) -> Scenario:
    data = synthetic_dataset(len(SYMBOLS), bars, seed=seed, symbols=SYMBOLS)
    return provision_from_market(
        svc, name, data, SYMBOLS, START, END, leverage_cap=leverage, allow_short=shorting
    )


@pytest.fixture
def scenario(service: ScenarioService) -> Scenario:
    return synthetic_scenario(service)


@pytest.fixture
def key(service: ScenarioService) -> str:
    return service.create_key("builder", Tier.PRO)


@pytest.fixture
def api(key: str, service: ScenarioService) -> Iterator[TestClient]:
    with TestClient(create_app(service), headers={"X-API-Key": key}) as client:
        yield client


# Hand-made bars for the reference agent: (open, close) in dollars per bar; high/low wrap them.
HAND_BARS = {
    "SPY": [
        (100, 100),
        (100, 102),
        (102, 104),
        (104, 105),
        (105, 100),
        (90, 60),
        (55, 50),
        (50, 50),
    ],
    "TSLA": [
        (200, 200),
        (200, 190),
        (190, 180),
        (180, 185),
        (185, 185),
        (185, 185),
        (185, 185),
        (185, 185),
    ],
}


def hand_scenario(svc: ScenarioService, *, name: str = "hand") -> Scenario:
    from tradeleague.formats.scenario import ScenarioBars, ScenarioConfig
    from tradeleague.money import MICRO, usd

    n = len(HAND_BARS["SPY"])
    times = tuple(int(START.timestamp()) + 86_400 * i for i in range(n))
    values = {}
    for symbol, rows in HAND_BARS.items():
        opens = tuple(o * MICRO for o, _ in rows)
        closes = tuple(c * MICRO for _, c in rows)
        highs = tuple(max(o, c) + MICRO for o, c in zip(opens, closes, strict=True))
        lows = tuple(min(o, c) - MICRO for o, c in zip(opens, closes, strict=True))
        values[symbol] = (opens, highs, lows, closes, tuple(1000 * MICRO for _ in rows))
    bars = ScenarioBars(("SPY", "TSLA"), times, values)
    config = ScenarioConfig(
        name=name,
        symbols=("SPY", "TSLA"),
        start=START,
        end=END,
        leverage_cap=2,
        allow_short=True,
        cash=usd(10_000),
        market="hand-made",
        synthetic=True,
        periods_per_year=252.0,
    )
    return svc.provision(config, bars)


@contextlib.contextmanager
def serve(service: ScenarioService) -> Iterator[str]:
    """Run the app under a real uvicorn server on a loopback port; yield its base URL."""
    with serve_asgi(create_app(service)) as url:
        yield url


@pytest.fixture
def base_url(service: ScenarioService) -> Iterator[str]:
    with serve(service) as url:
        yield url
