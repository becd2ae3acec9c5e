"""Market orders, costs and liquidation: S-FIL-2..5, S-LIQ-1, W-PF-2."""

from __future__ import annotations

import pytest

from tradeleague.money import qty, usd
from tradeleague.sim import (
    Executed,
    Order,
    OrderRules,
    Portfolio,
    PpmFee,
    PpmSlippage,
    Rejection,
    RejectReason,
    Side,
    execute_order,
    execute_orders,
    liquidate,
    needs_liquidation,
    scenario_price_slippage,
)

PRICES = {"SPY": usd(100), "TSLA": usd(100), "KO": usd(100)}
MARGIN = OrderRules(allow_short=True, allow_negative_cash=True, leverage_cap=2)


def _filled(outcome: Executed | Rejection) -> Executed:
    assert isinstance(outcome, Executed), outcome
    return outcome


def _rejected(outcome: Executed | Rejection) -> RejectReason:
    assert isinstance(outcome, Rejection), outcome
    assert outcome.order.symbol in outcome.detail
    return outcome.reason


def test_scenario_slippage_tiers() -> None:
    """S-FIL-2: 3 bps for SPY/QQQ/IWM/DIA, 20 bps high-variance, 8 bps default, overridable."""
    slip = scenario_price_slippage(["TSLA"], overrides={"KO": 1})
    assert [slip.bps_for(s) for s in ("SPY", "QQQ", "IWM", "DIA")] == [3, 3, 3, 3]
    assert slip.bps_for("TSLA") == 20
    assert slip.bps_for("AAPL") == 8
    assert slip.bps_for("KO") == 1
    assert slip.fill_price("SPY", Side.BUY, usd(100)) == usd("100.03")
    assert slip.fill_price("SPY", Side.SELL, usd(100)) == usd("99.97")
    assert slip.fill_price("TSLA", Side.COVER, usd(100)) == usd("100.2")
    assert slip.fill_price("AAPL", Side.SHORT, usd(100)) == usd("99.92")
    # Rounded against the trader: up when paying, down when receiving.
    assert slip.fill_price("AAPL", Side.BUY, usd("0.000001")) == 2
    assert slip.fill_price("AAPL", Side.SELL, usd("0.000003")) == 2


def test_fill_at_next_open_plus_slippage() -> None:
    """S-FIL-1, S-FIL-2: a queued buy fills at the given open moved by the symbol's slippage."""
    rules = OrderRules(price_slippage=scenario_price_slippage())
    done = _filled(
        execute_order(Portfolio.open(usd(1_000)), Order("SPY", Side.BUY, qty(2)), PRICES, rules)
    )
    assert done.fill.price == usd("100.03")
    assert done.portfolio.cash == usd(1_000) - usd("200.06")


def test_value_costs_follow_the_models() -> None:
    """W-EXE-5: fee and slippage on value; a buy of 2,000.00 takes 2,004.00."""
    rules = OrderRules(fee=PpmFee(1_000), slippage=PpmSlippage(1_000))
    done = _filled(
        execute_order(Portfolio.open(usd(10_000)), Order("KO", Side.BUY, qty(20)), PRICES, rules)
    )
    assert (done.fill.value, done.fill.fee, done.fill.slippage) == (usd(2_000), usd(2), usd(2))
    assert done.portfolio.cash == usd(10_000) - usd(2_004)
    sold = _filled(execute_order(done.portfolio, Order("KO", Side.SELL, qty(20)), PRICES, rules))
    assert sold.portfolio.cash == usd(10_000) - usd(2_004) + usd(1_996)


def test_whole_or_reject_with_reason_codes() -> None:
    """S-FIL-3, S-FIL-4, W-PF-2: a failed check rejects the whole order, readably."""
    cash_only = OrderRules()
    p = Portfolio.open(usd(1_000))
    assert _rejected(execute_order(p, Order("KO", Side.BUY, qty(0)), PRICES, cash_only)) is (
        RejectReason.INVALID_QUANTITY
    )
    assert _rejected(execute_order(p, Order("XX", Side.BUY, qty(1)), PRICES, cash_only)) is (
        RejectReason.NO_PRICE
    )
    assert _rejected(execute_order(p, Order("KO", Side.SHORT, qty(1)), PRICES, cash_only)) is (
        RejectReason.SHORTING_DISABLED
    )
    assert _rejected(execute_order(p, Order("KO", Side.SELL, qty(1)), PRICES, cash_only)) is (
        RejectReason.EXCEEDS_POSITION
    )
    assert _rejected(execute_order(p, Order("KO", Side.COVER, qty(1)), PRICES, MARGIN)) is (
        RejectReason.EXCEEDS_POSITION
    )
    # 10.000001 shares at 100 cost just over 1,000: no partial fill of 10 shares.
    too_big = Order("KO", Side.BUY, qty("10.000001"))
    assert _rejected(execute_order(p, too_big, PRICES, cash_only)) is RejectReason.INSUFFICIENT_CASH
    assert (
        _filled(execute_order(p, Order("KO", Side.BUY, qty(10)), PRICES, cash_only)).portfolio.cash
        == 0
    )
    long_ = _filled(execute_order(p, Order("KO", Side.BUY, qty(1)), PRICES, MARGIN)).portfolio
    assert _rejected(execute_order(long_, Order("KO", Side.SHORT, qty(1)), PRICES, MARGIN)) is (
        RejectReason.POSITION_IS_LONG
    )
    short = _filled(execute_order(p, Order("SPY", Side.SHORT, qty(1)), PRICES, MARGIN)).portfolio
    assert short.qty("SPY") == -qty(1)
    assert _rejected(execute_order(short, Order("SPY", Side.BUY, qty(1)), PRICES, MARGIN)) is (
        RejectReason.POSITION_IS_SHORT
    )


def test_leverage_cap_boundary() -> None:
    """S-FIL-5: notional after the order <= equity x cap is accepted; a micro-dollar more is not."""
    p = Portfolio.open(usd(1_000))
    at_cap = _filled(execute_order(p, Order("KO", Side.BUY, qty(20)), PRICES, MARGIN)).portfolio
    assert at_cap.notional(PRICES) == 2 * at_cap.equity(PRICES)
    over = Order("KO", Side.BUY, qty("20.000001"))
    assert _rejected(execute_order(p, over, PRICES, MARGIN)) is RejectReason.LEVERAGE_EXCEEDED
    short_over = Order("SPY", Side.SHORT, qty(21))
    assert _rejected(execute_order(p, short_over, PRICES, MARGIN)) is RejectReason.LEVERAGE_EXCEEDED
    # Reducing exposure is always allowed, even while above the cap.
    crashed = {**PRICES, "KO": usd(60)}
    assert at_cap.notional(crashed) > 2 * at_cap.equity(crashed)
    _filled(execute_order(at_cap, Order("KO", Side.SELL, qty(1)), crashed, MARGIN))


def test_execute_orders_keeps_going_after_a_rejection() -> None:
    """S-FIL-1, S-FIL-3: queued orders fill in sequence; a rejection leaves the others."""
    orders = [
        Order("KO", Side.BUY, qty(5)),
        Order("KO", Side.BUY, qty(6)),
        Order("SPY", Side.BUY, qty(5)),
    ]
    p, fills, rejections = execute_orders(Portfolio.open(usd(1_000)), orders, PRICES, OrderRules())
    assert [f.symbol for f in fills] == ["KO", "SPY"]
    assert [r.reason for r in rejections] == [RejectReason.INSUFFICIENT_CASH]
    assert p.cash == 0


@pytest.mark.parametrize(("ko_price", "expected"), [("70", False), ("60", True)])
def test_liquidation_threshold(ko_price: str, expected: bool) -> None:
    """S-LIQ-1: liquidate when equity < notional / (2 x cap)."""
    p = _filled(
        execute_order(Portfolio.open(usd(1_000)), Order("KO", Side.BUY, qty(20)), PRICES, MARGIN)
    ).portfolio
    marks = {"KO": usd(ko_price)}
    # At 70: equity 400, notional 1,400 -> 1,600 >= 1,400; at 60: 800 < 1,200.
    assert needs_liquidation(p, marks, 2) is expected


def test_liquidation_closes_everything_at_next_price() -> None:
    """S-LIQ-1: every position is force-closed at the next price (longs sold, shorts covered)."""
    p = Portfolio.open(usd(1_000))
    p = _filled(execute_order(p, Order("KO", Side.BUY, qty(8)), PRICES, MARGIN)).portfolio
    p = _filled(execute_order(p, Order("SPY", Side.SHORT, qty(8)), PRICES, MARGIN)).portfolio
    result = liquidate(p, {"KO": usd(50), "SPY": usd(150)}, MARGIN)
    assert result.liquidated
    assert result.portfolio.positions == {}
    assert [(f.symbol, f.side) for f in result.fills] == [("KO", Side.SELL), ("SPY", Side.COVER)]
    assert result.portfolio.cash == usd(1_000) - usd(400) - usd(400)
    assert not needs_liquidation(result.portfolio, {}, 2)


def test_holdings_are_valued_conservatively_and_a_missing_price_is_an_error() -> None:
    """W-EXE-1: each position's value rounds down (longs and shorts), every symbol needs a price."""
    from tradeleague.sim import Portfolio, SimError

    book = Portfolio(usd("10"), {"AAA": qty("0.000003"), "BBB": qty("-0.000001")})
    prices = {"AAA": usd("0.333333"), "BBB": usd("0.5")}
    # 3e-6 x 0.333333 = 0.000000999999 -> 0 ; -1e-6 x 0.5 = -0.0000005 -> -0.000001
    assert book.holdings_value(prices) == -1
    assert book.equity(prices) == usd("10") - 1
    with pytest.raises(SimError, match="no price for held symbol BBB"):
        book.holdings_value({"AAA": usd("1")})
