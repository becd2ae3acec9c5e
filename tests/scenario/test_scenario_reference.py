"""The reference agent through a real HTTP server, against an independent computation.

The agent buys, shorts, is refused past the leverage cap, covers, levers up,
and is liquidated after a crash. The expected numbers are worked out here from
the rules' text alone (plain integers and Fractions, no `tradeleague.sim`).
"""

from __future__ import annotations

import itertools
import math
import statistics
from fractions import Fraction

from conftest import HAND_BARS, hand_scenario, serve  # type: ignore[import-not-found]
from tradeleague.accounts import Tier
from tradeleague.client import ApiError, OrderSpec, Results, ScenarioClient, Step
from tradeleague.league.scenario import ScenarioService

BPS = {"SPY": 3, "TSLA": 20}
PLAN: dict[int, list[OrderSpec]] = {
    0: [OrderSpec("SPY", "buy", "50"), OrderSpec("TSLA", "short", "20")],
    1: [OrderSpec("SPY", "buy", "500")],  # would break the 2x cap
    2: [OrderSpec("TSLA", "cover", "20"), OrderSpec("SPY", "sell", "60")],  # sell > held
    3: [OrderSpec("SPY", "buy", "140")],  # levers up to ~1.9x
    5: [OrderSpec("SPY", "buy", "1")],  # pre-empted by the liquidation
}


def run_agent(
    api: ScenarioClient, scenario_id: str, refused: list[tuple[int, str]] | None = None
) -> tuple[list[Step], Results]:
    """Play PLAN; an order refused when placed is dropped (noted in ``refused``)."""
    run_id = api.create_run(scenario_id)["id"]
    steps = []
    while True:
        market = api.market(run_id)
        if market["done"]:
            break
        orders = list(PLAN.get(market["index"], []))
        while orders:
            try:
                api.trade(run_id, orders)
            except ApiError as exc:
                if exc.code != "invalid_order" or "order" not in exc.body["error"]:
                    raise
                error = exc.body["error"]
                (refused if refused is not None else []).append((market["index"], error["reason"]))
                orders.pop(int(error["order"]))
                continue
            break
        steps.append(api.step(run_id))
    return steps, api.results(run_id)


def _fill_price(symbol: str, side: str, open_: int) -> Fraction:
    """Next open moved against the trader by the symbol's bps, to the micro-dollar."""
    bps = BPS[symbol]
    raw = Fraction(open_ * 10**6 * (10_000 + (bps if side in ("buy", "cover") else -bps)), 10_000)
    micro = math.ceil(raw) if side in ("buy", "cover") else math.floor(raw)
    return Fraction(micro, 10**6)


def expected() -> tuple[
    list[tuple[list[tuple[str, str, int, Fraction]], list[str]]], list[Fraction]
]:
    """Walk the bars by hand: fills and rejection reasons per step, and the equity path."""
    cash = Fraction(10_000)
    pos = {"SPY": 0, "TSLA": 0}

    def bar(i: int, k: int) -> dict[str, int]:
        return {s: HAND_BARS[s][i][k] for s in HAND_BARS}

    def equity(prices: dict[str, int]) -> Fraction:
        return cash + sum(q * prices[s] for s, q in pos.items())

    def notional(prices: dict[str, int]) -> Fraction:
        return Fraction(sum(abs(q) * prices[s] for s, q in pos.items()))

    path = [Fraction(10_000)]
    out = []
    for i in range(len(HAND_BARS["SPY"]) - 1):
        opens, closes, before = bar(i + 1, 0), bar(i + 1, 1), bar(i, 1)
        fills: list[tuple[str, str, int, Fraction]] = []
        rejected: list[str] = []
        if any(pos.values()) and equity(before) < notional(before) / (2 * 2):
            for s in sorted(pos):
                if pos[s]:
                    side = "sell" if pos[s] > 0 else "cover"
                    price = _fill_price(s, side, opens[s])
                    cash += pos[s] * price
                    fills.append((s, side, abs(pos[s]), price))
                    pos[s] = 0
            rejected = ["liquidated" for _ in PLAN.get(i, [])]
            path.append(equity(closes))
            out.append((fills, rejected))
            break
        for order in PLAN.get(i, []):
            q, s, side = int(order.quantity), order.symbol, order.side
            if side == "sell" and q > pos[s]:
                continue  # refused when placed (issue 29), never queued
            price = _fill_price(s, side, opens[s])
            sign = 1 if side in ("buy", "cover") else -1
            cash -= sign * q * price
            pos[s] += sign * q
            if side in ("buy", "short") and notional(opens) > 2 * equity(opens):
                cash += sign * q * price
                pos[s] -= sign * q
                rejected.append("leverage_exceeded")
                continue
            fills.append((s, side, q, price))
        path.append(equity(closes))
        out.append((fills, rejected))
    return out, path


def test_reference_agent_matches_independent_computation(service: ScenarioService) -> None:
    """S-FIL-1..5, S-LIQ-1, S-SCO-1, S-API-1..4 through uvicorn + `tradeleague.client`."""
    scenario = hand_scenario(service)
    key = service.create_key("ref", Tier.PRO)
    with serve(service) as url, ScenarioClient(url, key) as api:
        refused: list[tuple[int, str]] = []
        steps, results = run_agent(api, scenario.id, refused)
    assert refused == [(2, "exceeds_position")]  # sell 60 with 50 held: refused when placed
    want_steps, path = expected()
    assert len(steps) == len(want_steps) == 6  # liquidated at bar 6 of 7
    for got, (fills, rejected) in zip(steps, want_steps, strict=True):
        assert [
            (f["symbol"], f["side"], Fraction(f["quantity"]), Fraction(f["price"]))
            for f in got["fills"]
        ] == [(s, d, Fraction(q), p) for s, d, q, p in fills]
        assert [r["reason"] for r in got["rejected"]] == rejected
    assert [Fraction(s["equity"]) for s in steps] == path[1:]
    assert steps[-1]["liquidated"]
    assert steps[-1]["done"]
    assert steps[-2]["at_risk"]  # the warning came one step before the forced close
    assert steps[1]["rejected"][0]["reason"] == "leverage_exceeded"
    assert steps[2]["fills"][0]["side"] == "cover"
    returns = [float(b / a - 1) for a, b in itertools.pairwise(path)]
    negatives = [r for r in returns if r < 0]
    assert results["liquidated"] is True
    assert Fraction(results["final_equity"]) == path[-1]
    assert math.isclose(results["return"], float(path[-1] / path[0] - 1), rel_tol=1e-12)
    peak, worst = path[0], Fraction(0)
    for v in path:
        peak = max(peak, v)
        worst = max(worst, (peak - v) / peak)
    assert math.isclose(results["max_drawdown"], float(worst), rel_tol=1e-12)
    volatility, sharpe_got, sortino_got = (results[k] for k in ("volatility", "sharpe", "sortino"))
    assert volatility is not None
    assert sharpe_got is not None
    assert sortino_got is not None
    assert math.isclose(volatility, statistics.stdev(returns), rel_tol=1e-9)
    sharpe = math.sqrt(252) * statistics.mean(returns) / statistics.stdev(returns)
    sortino = math.sqrt(252) * statistics.mean(returns) / statistics.stdev(negatives)
    assert math.isclose(sharpe_got, sharpe, rel_tol=1e-9)
    assert math.isclose(sortino_got, sortino, rel_tol=1e-9)


def test_same_agent_twice_scores_the_same(service: ScenarioService) -> None:
    """S-SCN-2: the same agent on the same scenario gets identical results every run."""
    scenario = hand_scenario(service)
    key = service.create_key("twice", Tier.PRO)
    with serve(service) as url, ScenarioClient(url, key) as api:
        first_steps, first = run_agent(api, scenario.id)
        second_steps, second = run_agent(api, scenario.id)
    assert first_steps != []
    assert [{**s, "run_id": ""} for s in first_steps] == [{**s, "run_id": ""} for s in second_steps]
    assert {**first, "run_id": ""} == {**second, "run_id": ""}
