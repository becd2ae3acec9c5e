"""The weights league's rebalance, rule by rule: W-EXE-1..7, W-PF-2, W-VAL-7."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tradeleague.money import MICRO, qty, usd
from tradeleague.sim import (
    Fill,
    Portfolio,
    PpmFee,
    RebalanceParams,
    Side,
    SimError,
    ZeroSlippage,
    rebalance,
)

P100 = {s: usd(100) for s in ("AAA", "BBB", "CCC", "DDD")}


def _holding(cash: str, **held: str) -> Portfolio:
    return Portfolio(usd(cash), {s: qty(q) for s, q in held.items()})


def test_seed_buy_of_2000_takes_2004() -> None:
    """W-EXE-5: a buy of 2,000.00 takes 2,004.00 (0.1% fee + 0.1% slippage)."""
    result = rebalance(Portfolio.open(usd(10_000)), {"AAA": 2_000}, P100)
    (fill,) = result.fills
    assert (fill.side, fill.qty, fill.value, fill.fee, fill.slippage) == (
        Side.BUY,
        qty(20),
        usd(2_000),
        usd(2),
        usd(2),
    )
    assert result.portfolio.cash == usd(7_996)
    assert not result.scaled


def test_sell_adds_value_less_both_costs() -> None:
    """W-EXE-5: a sell adds its value less fee and slippage to cash."""
    result = rebalance(_holding("0", AAA="30"), {"AAA": 0}, P100)
    assert result.portfolio == Portfolio(usd(2_994), {})


def test_value_includes_halted_and_halted_holdings_are_left_alone() -> None:
    """W-EXE-1, W-EXE-2, W-VAL-7: halted holdings count in value but are not traded."""
    p = _holding("5000", AAA="50")
    result = rebalance(p, {"AAA": 0, "BBB": 4_000, "CCC": 1_000}, P100, halted={"AAA", "CCC"})
    assert result.value == usd(10_000)
    assert [(f.symbol, f.side, f.value) for f in result.fills] == [("BBB", Side.BUY, usd(4_000))]
    assert result.portfolio.qty("AAA") == qty(50)
    assert result.portfolio.qty("CCC") == 0


@pytest.mark.parametrize(
    ("weight", "traded"), [(1_049, False), (1_050, True), (951, False), (950, True)]
)
def test_threshold_boundary(weight: int, traded: bool) -> None:
    """W-EXE-3: a change smaller than 0.5% of value (50.00 of 10,000) is not traded; 50.00 is."""
    p = _holding("9000", AAA="10")
    result = rebalance(p, {"AAA": weight}, P100)
    assert bool(result.fills) is traded
    if traded:
        assert abs(result.fills[0].value) == usd(50)


def test_target_zero_sells_in_full_below_threshold() -> None:
    """W-EXE-3: a holding whose target is zero is sold in full, however small."""
    p = _holding("9999", AAA="0.01")
    result = rebalance(p, {}, P100)
    assert [(f.symbol, f.side, f.qty) for f in result.fills] == [("AAA", Side.SELL, qty("0.01"))]
    assert result.portfolio.positions == {}


def test_dust_sale_never_takes_cash_negative() -> None:
    """W-PF-2, W-EXE-7: selling a one-micro-dollar holding from zero cash keeps cash >= 0."""
    p = Portfolio(usd(0), {"AAA": qty("0.000001")})
    result = rebalance(p, {}, {"AAA": usd(1)})
    assert result.portfolio.cash == 0
    assert result.portfolio.positions == {}


def test_sells_first_then_buys_each_alphabetical() -> None:
    """W-EXE-4: sells fill first, then buys, each group alphabetical."""
    p = _holding("0", DDD="25", BBB="25", AAA="25", CCC="25")
    targets = {"AAA": 1_000, "CCC": 4_000, "EEE": 2_000, "BBB": 0}
    prices = {**P100, "EEE": usd(100), "FFF": usd(100)}
    targets["FFF"] = 1_000
    result = rebalance(p, targets, prices)
    order = [(f.side, f.symbol) for f in result.fills]
    assert order == [
        (Side.SELL, "AAA"),
        (Side.SELL, "BBB"),
        (Side.SELL, "DDD"),
        (Side.BUY, "CCC"),
        (Side.BUY, "EEE"),
        (Side.BUY, "FFF"),
    ]


def test_buys_scaled_in_proportion_when_cash_is_short() -> None:
    """W-EXE-6: all buys scale by the same fraction so cash pays for them with costs."""
    result = rebalance(
        Portfolio.open(usd(10_000)), {"AAA": 4_000, "BBB": 4_000, "CCC": 2_000}, P100
    )
    assert result.scaled
    cash = result.portfolio.cash
    assert 0 <= cash < usd(1)
    ratios = [
        Fraction(f.value, usd(w)) for f, w in zip(result.fills, (4_000, 4_000, 2_000), strict=True)
    ]
    assert all(abs(r - Fraction(10_000, 10_020)) < Fraction(1, 10**6) for r in ratios)
    spent = sum(f.value + f.fee + f.slippage for f in result.fills)
    assert spent + cash == usd(10_000)


def test_scaling_uses_cash_after_sells() -> None:
    """W-EXE-4, W-EXE-6: sell proceeds (net of costs) fund the buys."""
    p = _holding("0", AAA="100")
    result = rebalance(p, {"BBB": 10_000}, P100)
    sell, buy = result.fills
    assert sell.side is Side.SELL
    assert buy.side is Side.BUY
    assert result.scaled
    assert 0 <= result.portfolio.cash < usd(1)
    assert buy.value + buy.fee + buy.slippage <= sell.value - sell.fee - sell.slippage


def test_partial_sell_never_leaves_a_holding_above_target() -> None:
    """W-EXE-7, W-PF-3: a partial sell's quantity rounds up, capped at the holding."""
    prices = {"AAA": usd(3)}
    p = _holding("0", AAA="3333.333333")
    result = rebalance(p, {"AAA": 4_000}, prices)
    after = result.portfolio
    assert after.qty("AAA") * prices["AAA"] // MICRO <= result.value * 4_000 // 10_000


def test_buy_quantity_rounds_down() -> None:
    """W-EXE-7: a buy's quantity is rounded down; its value never exceeds the change."""
    prices = {"AAA": usd(3)}
    result = rebalance(Portfolio.open(usd(1_000)), {"AAA": 1_000}, prices)
    (fill,) = result.fills
    assert fill.qty == qty("33.333333")
    assert fill.value == usd("99.999999")


def test_presets_are_configurable() -> None:
    """W-EXE-3, W-EXE-5: threshold and cost models come from the parameters."""
    params = RebalanceParams(threshold_ppm=0, fee=PpmFee(0), slippage=ZeroSlippage())
    result = rebalance(_holding("9000", AAA="10"), {"AAA": 1_001}, P100, params=params)
    (fill,) = result.fills
    assert fill == Fill.at("AAA", Side.BUY, qty("0.01"), usd(100))


@pytest.mark.parametrize(
    ("targets", "match"),
    [
        ({"AAA": 10_001}, "outside"),
        ({"AAA": 6_000, "BBB": 5_000}, "add up"),
        ({"ZZZ": 1}, "no price"),
    ],
)
def test_bad_targets_raise(targets: dict[str, int], match: str) -> None:
    """W-VAL-4, W-VAL-5: the format validates first; the engine refuses anything out of range."""
    with pytest.raises(SimError, match=match):
        rebalance(Portfolio.open(usd(1)), targets, P100)


def test_shorts_are_refused() -> None:
    """W-PF-2: the weights league holds no shorts."""
    with pytest.raises(SimError, match="W-PF-2"):
        rebalance(_holding("100", AAA="-1"), {}, P100)
