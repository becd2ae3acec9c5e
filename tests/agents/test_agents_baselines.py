"""Baseline agents: deterministic, format-aware answers (T-AGT-1 equal terms)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tradeleague.agents import (
    BuyAndHold,
    CashAgent,
    CoinFlip,
    EqualWeight,
    Momentum,
    WeightsView,
    make_baseline,
)
from tradeleague.money import qty, usd


def _view(**kw: object) -> WeightsView:
    base: dict[str, object] = {
        "time": datetime(2026, 1, 5, 15, tzinfo=UTC),
        "symbols": ("AAA", "BBB", "CCC", "DDD"),
        "prices": {s: usd(100) for s in ("AAA", "BBB", "CCC", "DDD")},
        "history": {
            "AAA": [usd(100)] * 20 + [usd(110)],
            "BBB": [usd(100)] * 20 + [usd(90)],
            "CCC": [usd(100)] * 20 + [usd(130)],
            "DDD": [usd(100)] * 5,
        },
        "cash": usd(10_000),
        "benchmark": "BBB",
    }
    base.update(kw)
    return WeightsView(**base)  # type: ignore[arg-type]


def test_cash_holds_cash() -> None:
    assert CashAgent().decide(_view()) == {}


def test_buy_and_hold_buys_once_within_the_cap() -> None:
    """W-PF-3: a baseline respects the format's per-symbol cap like any agent."""
    assert BuyAndHold().decide(_view()) == {"BBB": 10_000}
    assert BuyAndHold().decide(_view(max_weight_bps=4_000)) == {"BBB": 4_000}
    assert BuyAndHold().decide(_view(holdings={"BBB": qty(1)})) is None


def test_equal_weight_spreads_evenly_and_caps() -> None:
    assert EqualWeight().decide(_view()) == dict.fromkeys(("AAA", "BBB", "CCC", "DDD"), 2_500)
    three = _view(symbols=("AAA", "BBB", "CCC"))
    assert EqualWeight().decide(three) == dict.fromkeys(("AAA", "BBB", "CCC"), 3_333)
    two = _view(symbols=("AAA", "BBB"), max_weight_bps=4_000)
    assert EqualWeight().decide(two) == {"AAA": 4_000, "BBB": 4_000}


def test_momentum_picks_positive_trailing_winners_with_enough_history() -> None:
    """No look-ahead: only the closes shown count; short history is not eligible."""
    assert Momentum(lookback=20, top=3).decide(_view()) == {"AAA": 5_000, "CCC": 5_000}
    assert Momentum(lookback=20, top=1).decide(_view()) == {"CCC": 10_000}


def test_coin_flip_is_seeded_and_reproducible() -> None:
    assert CoinFlip(seed=7).decide(_view()) == CoinFlip(seed=7).decide(_view())
    agent = CoinFlip(seed=7)
    answers = [agent.decide(_view()) for _ in range(20)]
    assert len({tuple(sorted((x or {}).items())) for x in answers}) > 1
    for answer in answers:
        assert answer is not None
        assert sum(answer.values()) <= 10_000


def test_unknown_baseline_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="buy-and-hold, cash, coin-flip"):
        make_baseline("yolo")
    assert make_baseline("coin-flip", seed=3).decide(_view()) == CoinFlip(seed=3).decide(_view())
