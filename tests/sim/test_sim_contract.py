"""The event contract the store codes against: Portfolio, Fill, Side and their JSON forms."""

from __future__ import annotations

import importlib
import json

import pytest

import tradeleague.sim as sim
from tradeleague.money import qty, usd
from tradeleague.sim import Fill, FillError, PayloadError, Portfolio, Side


def _buy(symbol: str = "AAPL", amount: str = "2", price: str = "150.25") -> Fill:
    return Fill.at(symbol, Side.BUY, qty(amount), usd(price), fee=usd("0.31"))


def test_open_holds_only_cash() -> None:
    p = Portfolio.open(usd(10_000))
    assert p.cash == 10_000_000_000
    assert p.positions == {}
    assert p.state() == {"cash": "10000000000", "positions": {}}


def test_apply_is_pure_and_moves_cash_and_position() -> None:
    """W-EXE-5: a buy takes its value plus costs from cash; the old portfolio is untouched."""
    p = Portfolio.open(usd(10_000))
    fill = _buy()
    q = p.apply(fill)
    assert p == Portfolio.open(usd(10_000))
    assert q.qty("AAPL") == qty(2)
    assert q.cash == usd(10_000) - usd("300.50") - usd("0.31")
    assert fill.cash_delta == -(usd("300.50") + usd("0.31"))


def test_state_is_canonical_json_sorted_and_drops_zero_positions() -> None:
    p = Portfolio.open(usd(1_000)).apply(_buy("MSFT", "1", "10")).apply(_buy("AAPL", "1", "10"))
    p = p.apply(Fill.at("MSFT", Side.SELL, qty(1), usd(11)))
    state = p.state()
    assert list(state) == ["cash", "positions"]
    assert state["positions"] == {"AAPL": "1000000"}
    assert json.loads(json.dumps(state)) == state
    assert Portfolio.from_state(state) == p
    two = p.apply(_buy("AA", "1", "1"))
    assert list(two.state()["positions"]) == ["AA", "AAPL"]  # type: ignore[call-overload]


def test_fill_payload_round_trip_is_exact() -> None:
    for side in Side:
        fill = Fill.at("BTC", side, qty("0.000001"), usd("123456.789012"), usd(1), usd("0.5"))
        payload = fill.to_payload()
        assert json.loads(json.dumps(payload)) == payload
        assert all(isinstance(v, str) for v in payload.values())
        assert Fill.from_payload(payload) == fill


@pytest.mark.parametrize(
    ("key", "bad"),
    [("qty", 5), ("qty", "+5"), ("qty", "05"), ("qty", "1.5"), ("fee", "-0"), ("side", "long")],
)
def test_fill_payload_rejects_non_canonical_fields(key: str, bad: object) -> None:
    payload = _buy().to_payload()
    payload[key] = bad
    with pytest.raises(PayloadError):
        Fill.from_payload(payload)


def test_fill_payload_rejects_missing_or_extra_keys() -> None:
    payload = _buy().to_payload()
    with pytest.raises(PayloadError, match="unknown"):
        Fill.from_payload({**payload, "extra": "1"})
    del payload["fee"]
    with pytest.raises(PayloadError, match="missing"):
        Fill.from_payload(payload)


def test_fill_value_must_round_against_the_trader() -> None:
    """W-EXE-7: a buy pays qty x price rounded up; a sell receives it rounded down."""
    # 1 micro-unit at 1.5 micro-dollars per unit is 0.0000015 micro-dollars: 1 paid, 0 received.
    assert Fill.at("X", Side.BUY, qty("0.5"), usd("0.000003")).value == 2
    assert Fill.at("X", Side.BUY, qty("0.000001"), usd("1.5")).value == 2
    assert Fill.at("X", Side.SELL, qty("0.000001"), usd("1.5")).value == 1
    with pytest.raises(FillError, match="rounded"):
        Fill("X", Side.BUY, qty("0.000001"), usd("1.5"), usd("0.000001"))
    with pytest.raises(FillError):
        Fill.at("X", Side.BUY, qty(0), usd(1))
    with pytest.raises(FillError):
        Fill.at("X", Side.BUY, qty(1), usd(1), fee=usd(-1))


@pytest.mark.parametrize(
    ("start_side", "bad_side"),
    [(Side.BUY, Side.SHORT), (Side.SHORT, Side.BUY)],
)
def test_apply_rejects_a_side_that_does_not_fit(start_side: Side, bad_side: Side) -> None:
    """S-FIL-4: a long is sold and a short covered; neither flips through zero."""
    p = Portfolio.open(usd(100)).apply(Fill.at("X", start_side, qty(1), usd(1)))
    with pytest.raises(FillError):
        p.apply(Fill.at("X", bad_side, qty(1), usd(1)))
    over = Side.SELL if start_side is Side.BUY else Side.COVER
    with pytest.raises(FillError, match="exceeds"):
        p.apply(Fill.at("X", over, qty(2), usd(1)))


def test_valuation_is_conservative_for_long_and_short() -> None:
    """W-EXE-7: long value rounds down, a short liability rounds up; notional rounds up."""
    p = Portfolio(usd(0), {"L": qty("0.000001"), "S": qty("-0.000001")})
    prices = {"L": usd("1.5"), "S": usd("1.5")}
    assert p.holdings_value(prices) == 1 - 2
    assert p.notional(prices) == 4
    with pytest.raises(sim.SimError, match="no price"):
        p.equity({"L": usd(1)})


def test_every_public_name_is_exported() -> None:
    names = ["", ".fill", ".portfolio", ".costs", ".orders", ".liquidation", ".rebalancing"]
    for suffix in [*names, ".binary", ".errors"]:
        module = importlib.import_module(f"tradeleague.sim{suffix}")
        for name in module.__all__:
            assert hasattr(module, name), (module.__name__, name)
    assert {"Portfolio", "Fill", "Side"} <= set(sim.__all__)
