"""ST-1 and ST-2 on the weights tables: verdicts against cash and buy-and-hold, luckiest of N.

Names: ST-1 (every figure states the entries it rests on), ST-2 (beside each agent:
distinguishable from its baselines by a stated test, a bootstrap over its step
returns; the luckiest-of-N line by simulation), ST-3 (the line rounded to hundredths),
C-1 (the disclaimer on the API's tables).
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from tradeleague.disclaimer import DISCLAIMER
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import AgentRecord, Division, Entry, EntryKind
from tradeleague.formats.weights.luck import (
    MIN_STEPS,
    TEST_TEXT,
    Verdict,
    agent_step_returns,
    benchmark_step_returns,
    benchmark_symbol,
    table_luck,
)
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.board_table import render_table
from tradeleague.league.weights.reads import weights_router
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.league.weights.report import build_report, season_luck
from tradeleague.league.weights.state import SeasonState
from tradeleague.market import synthetic_dataset
from tradeleague.stats import Outcome
from tradeleague.store import open_store

START = 10_000_000_000
T0 = datetime(2026, 3, 2, 15, tzinfo=UTC)


def _rng_for(seed: int) -> Callable[[str], np.random.Generator]:
    def make(label: str) -> np.random.Generator:
        return np.random.default_rng([seed, *label.encode()])

    return make


def _record(agent: str, values: Sequence[int]) -> AgentRecord:
    entries = [
        Entry(round=T0 + timedelta(days=i), kind=EntryKind.DECISION, value=v)
        for i, v in enumerate(values)
    ]
    return AgentRecord(agent=agent, name=agent, created_at=T0, entries=entries, trades=0)


def _walk(seed: int, steps: int, drift: float, vol: float) -> list[int]:
    rng = random.Random(seed)
    value, out = float(START), []
    for _ in range(steps):
        value *= 1 + drift + rng.gauss(0, vol)
        out.append(round(value))
    return out


def test_weights_luck_verdicts_against_cash_and_buy_and_hold() -> None:
    """ST-2: a steady gainer beats cash; a copy of the benchmark does not beat buy-and-hold.

    A distinguishable result says its direction: cash against a rising benchmark is worse.
    """
    steps = 30
    bench = _walk(1, steps, 0.004, 0.002)  # the benchmark: up 0.4% a step, little noise
    prices = {T0 + timedelta(days=i): p // 1000 for i, p in enumerate(bench)}
    copy = [START] + [START * p // bench[0] for p in bench[1:]]  # holds it from entry 1
    flat = [START] * steps
    records = [
        _record("copy", copy),
        _record("cash", flat),
        _record("noise", _walk(2, steps, 0.0, 0.02)),
        _record("new", copy[:MIN_STEPS - 1]),
    ]  # fmt: skip
    luck = table_luck(
        records, start_cash=START, benchmark="SPY", benchmark_prices=prices, rng_for=_rng_for(3)
    )
    assert luck.rows["copy"].vs_cash.verdict is Verdict.DISTINGUISHABLE
    assert luck.rows["copy"].vs_cash.outcome is Outcome.BETTER
    assert luck.rows["copy"].vs_cash.p_value is not None
    assert luck.rows["copy"].vs_cash.p_value < 0.01
    held = luck.rows["copy"].vs_buy_and_hold
    assert held.verdict is Verdict.NOT_DISTINGUISHABLE  # the same steps, rounding aside
    assert held.mean_difference is not None
    assert abs(held.mean_difference) < 1e-7
    cash = luck.rows["cash"].vs_cash
    assert cash.verdict is Verdict.NOT_DISTINGUISHABLE
    assert cash.p_value == 1.0  # every difference is zero
    assert luck.rows["cash"].vs_buy_and_hold.verdict is Verdict.DISTINGUISHABLE
    assert luck.rows["cash"].vs_buy_and_hold.outcome is Outcome.WORSE
    assert (
        luck.rows["cash"]
        .vs_buy_and_hold.words("buy-and-hold")
        .startswith("worse than buy-and-hold (p=")
    )
    assert cash.words("cash") == "not distinguishable from cash (p=1.000)"
    assert luck.rows["noise"].vs_cash.verdict is Verdict.NOT_DISTINGUISHABLE
    few = luck.rows["new"]
    assert few.vs_cash.verdict is Verdict.TOO_FEW
    assert few.vs_cash.words("cash") == "too few steps to test"
    assert few.vs_cash.to_payload() == {
        "verdict": "too few entries",
        "outcome": "too_few",
        "p_value": None,
        "steps": 4,
    }
    # beta and alpha against the benchmark: a copy of it is beta 1, alpha 0 (to rounding)
    fit = luck.rows["copy"].alpha
    assert fit is not None
    assert abs(fit.beta - 1) < 1e-3
    assert abs(fit.alpha) < 1e-6
    assert fit.outcome is Outcome.NOT_DISTINGUISHABLE
    assert fit.steps == steps - 1  # the benchmark is held from the first entry
    flat_fit = luck.rows["cash"].alpha
    assert flat_fit is not None
    assert (flat_fit.beta, flat_fit.alpha) == (0.0, 0.0)
    assert luck.rows["new"].alpha is not None  # four entries: three steps, enough to fit
    again = table_luck(
        records, start_cash=START, benchmark="SPY", benchmark_prices=prices, rng_for=_rng_for(3)
    )
    assert again.rows["copy"].alpha_payload() == luck.rows["copy"].alpha_payload()  # seeded
    # ST-1: each verdict states the entries it rests on.
    assert luck.rows["copy"].vs_cash.steps == steps
    assert luck.rows["copy"].vs_cash.words("cash").startswith("better than cash (p=")
    assert luck.rows["copy"].vs_cash.to_payload()["outcome"] == "better"


def test_weights_luck_line_rises_with_n_and_states_its_entries() -> None:
    """ST-1, ST-2, ST-3: the luckiest-of-N line grows with N and names N and its entries."""
    steps = 20
    bench = _walk(4, steps, 0.0, 0.01)
    prices = {T0 + timedelta(days=i): p for i, p in enumerate(bench)}

    def line(n: int) -> Any:
        records = [_record(f"a{i}", [START] * steps) for i in range(n)]
        return table_luck(
            records, start_cash=START, benchmark="SPY", benchmark_prices=prices, rng_for=_rng_for(5)
        )

    one, many = line(1), line(30)
    assert one.luckiest is not None
    assert many.luckiest is not None
    assert many.luckiest > one.luckiest + 0.02
    assert many.steps == steps
    assert many.caption.startswith("Luckiest of 30 agents with no skill: +")
    assert f"over {steps} entries" in many.caption
    line_pct = many.luckiest_pct
    assert line_pct is not None
    assert line_pct == round(line_pct, 2)  # ST-3: hundredths
    payload = many.to_payload()
    assert payload["luckiest_of_n"]["entries"] == steps
    assert payload["luckiest_of_n"]["agents"] == 30
    assert payload["test"] == TEST_TEXT
    assert "bootstrap" in TEST_TEXT
    short = table_luck(
        [_record("a", [START])],
        start_cash=START,
        benchmark="SPY",
        benchmark_prices=prices,
        rng_for=_rng_for(5),
    )
    assert short.luckiest is None
    assert "too few entries" in short.caption


def test_weights_luck_rows_do_not_depend_on_order() -> None:
    """ST-2: a row's verdict comes from its own seeded draws, whatever rows precede it."""
    steps = 12
    bench = _walk(6, steps, 0.001, 0.01)
    prices = {T0 + timedelta(days=i): p for i, p in enumerate(bench)}
    records = [_record(f"a{i}", _walk(10 + i, steps, 0.001, 0.01)) for i in range(5)]

    def luck(rs: Sequence[AgentRecord]) -> Any:
        return table_luck(
            rs, start_cash=START, benchmark="SPY", benchmark_prices=prices, rng_for=_rng_for(8)
        )

    forward, backward = luck(records), luck(records[::-1])
    assert forward.rows == backward.rows
    assert forward.luckiest == backward.luckiest
    assert benchmark_symbol(("QQQ", "SPY")) == "SPY"
    assert benchmark_symbol(("QQQ", "TLT")) == "QQQ"
    assert benchmark_symbol(()) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(10**8, 10**12), min_size=1, max_size=30))
def test_weights_step_returns_compound_to_the_record(values: list[int]) -> None:
    """ST-2: the step returns the test rests on compound back to the recorded values."""
    agent = agent_step_returns(START, values)
    assert len(agent) == len(values)
    assert math.isclose(math.prod(1 + r for r in agent) * START, values[-1], rel_tol=1e-7)
    held = benchmark_step_returns(values)
    assert held[0] == 0.0
    assert math.isclose(math.prod(1 + r for r in held) * values[0], values[-1], rel_tol=1e-7)
    gaps = benchmark_step_returns([None, *values[:1], None, *values[1:]])
    assert math.isclose(math.prod(1 + r for r in gaps), math.prod(1 + r for r in held))


def _season(sqlite_url: str) -> tuple[SeasonState, dict[str, Any], Any]:
    dataset = synthetic_dataset(3, 40, seed=9, symbols=["QQQ", "SPY", "TLT"])
    specs = ["cash=baseline:cash", "hold=baseline:buy_and_hold", "eq=baseline:equal_weight"]
    parsed, agents, _ = build_agents(specs, gateway=object())  # type: ignore[arg-type]
    roster = [
        RosterEntry(name=p.name, spec=s, division=Division.PRO)
        for p, s in zip(parsed, specs, strict=True)
    ]
    last = datetime.fromtimestamp(int(dataset["SPY"].times[-1]), UTC).date()
    start, end = last - timedelta(days=20), last + timedelta(days=1)
    with open_store(sqlite_url) as store:
        state = asyncio.run(
            run_season(
                store, FrozenBarsSource(dataset), roster, agents,
                season_id="luck-1", start=start, end=end,
            )
        )  # fmt: skip
        app = FastAPI()
        app.include_router(weights_router(lambda: nullcontext(store)))
        client = TestClient(app)
        table = client.get("/api/v1/weights/seasons/luck-1/tables/pro").json()
        assert client.get("/api/v1/weights/seasons/luck-1/tables/pro").json() == table
        page = client.get("/api/v1/weights/seasons/luck-1/agents/hold").json()
    return state, table, page


def test_weights_tables_report_and_api_show_st2(sqlite_url: str) -> None:
    """ST-1, ST-2, C-1: table, REPORT.json and read API carry the same verdicts and line."""
    state, table, page = _season(sqlite_url)
    report = build_report(state)
    luck = season_luck(state, Division.PRO)
    assert luck.benchmark == "SPY"
    entries = len(state.agents["cash"].entries)
    assert entries >= MIN_STEPS
    agents = {a["name"]: a for a in report["agents"]}
    assert agents["cash"]["vs_cash"] == {
        "verdict": "not distinguishable",
        "outcome": "not_distinguishable",
        "p_value": "1.0000",
        "steps": entries,
    }
    assert agents["hold"]["vs_buy_and_hold"]["steps"] == entries
    line = report["significance"]["pro"]["luckiest_of_n"]
    null = luck.null
    assert null is not None
    assert line == {  # the no-skill null under the league's rules (test_weights_null_board.py)
        "method": "simulated under the league's rules",
        "kind": "random-weights",
        "seed": null.seed,
        "agents": 3,
        "rounds": entries,
        "quantiles": {k: str(v) for k, v in null.line.quantiles.items()},
        "luckiest": str(null.line.luckiest),
        "expected_best": str(null.expected_best),
        "seasons": null.seasons,
    }
    assert null.seasons == 1000 // 3  # the cloud's 1,000 agents cut into seasons of 3
    assert luck.luckiest is None  # no resampled line beside the simulated one
    assert report["significance"]["open"]["luckiest_of_n"]["agents"] == 0
    # The read API serves the same verdicts beside each row, and the same line.
    assert table["disclaimer"] == DISCLAIMER
    assert table["significance"] == report["significance"]["pro"]
    for row in table["rows"]:
        assert row["vs_cash"] == agents[row["name"]]["vs_cash"]
        assert row["vs_buy_and_hold"] == agents[row["name"]]["vs_buy_and_hold"]
    assert page["standing"]["vs_buy_and_hold"] == agents["hold"]["vs_buy_and_hold"]
    # The terminal table: short columns and the caption line with its entries.
    console = Console(width=220, record=True)
    console.print(render_table(state, Division.PRO))
    text = console.export_text()
    assert "vs cash" in text
    assert "vs B&H" in text
    flat = " ".join(text.split())
    assert f"Luckiest of 3 agents with no skill: {null.expected_best:+.2f}% expected" in flat
    assert f"under the league's rules over {entries} rounds" in flat
    assert "paired bootstrap" in text
    # Deterministic: seeded from the season id.
    assert build_report(state) == report
