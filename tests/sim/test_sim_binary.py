"""Binary options for the direction arena: D-TRD-1, D-TRD-2, D-TRD-4, D-SCO-6."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tradeleague.money import usd
from tradeleague.sim import (
    BinaryOption,
    Direction,
    OptionResult,
    SimError,
    break_even_hit_rate,
    place,
)

EXPIRY = datetime(2026, 7, 16, 12, 5, tzinfo=UTC)


def _option(answer: str, payout_ppm: int = 800_000) -> BinaryOption:
    return BinaryOption(
        direction=Direction.from_answer(answer),
        stake=usd(10),
        entry_price=usd("65000.50"),
        expiry=EXPIRY,
        payout_ppm=payout_ppm,
    )


def test_up_is_call_down_is_put() -> None:
    """D-TRD-2: up -> call, down -> put; anything else is not a direction."""
    assert Direction.from_answer("up") is Direction.CALL
    assert Direction.from_answer("down") is Direction.PUT
    with pytest.raises(ValueError, match="up"):
        Direction.from_answer("UP")


@pytest.mark.parametrize(
    ("answer", "exit_price", "outcome", "pnl", "credit"),
    [
        ("up", "65000.51", OptionResult.WIN, "8", "18"),
        ("up", "65000.49", OptionResult.LOSS, "-10", "0"),
        ("down", "64000", OptionResult.WIN, "8", "18"),
        ("down", "66000", OptionResult.LOSS, "-10", "0"),
        ("up", "65000.50", OptionResult.DRAW, "0", "10"),
        ("down", "65000.50", OptionResult.DRAW, "0", "10"),
    ],
)
def test_settlement(
    answer: str, exit_price: str, outcome: OptionResult, pnl: str, credit: str
) -> None:
    """D-TRD-4: a win pays stake x 80% (+8.00), a loss costs the stake, a draw returns it."""
    settled = _option(answer).settle(usd(exit_price))
    assert (settled.outcome, settled.pnl, settled.credit) == (outcome, usd(pnl), usd(credit))


def test_balance_arithmetic_of_a_paper_broker() -> None:
    """D-TRD-1, D-TRD-4: 50,000 less a stake, then the credit back at close."""
    balance = usd(50_000)
    option = _option("up")
    after_place = place(balance, option)
    assert after_place == usd(49_990)
    settled = option.settle(usd(65_001))
    assert after_place + settled.credit == balance + settled.pnl == usd(50_008)


def test_payout_is_configurable_and_rounds_down() -> None:
    """D-TRD-3, D-TRD-4: the payout is a parameter; a fractional profit rounds down."""
    option = BinaryOption(
        direction=Direction.CALL,
        stake=usd("0.000003"),
        entry_price=usd(1),
        expiry=EXPIRY,
        payout_ppm=500_000,
    )
    assert option.settle(usd(2)).pnl == 1
    assert _option("up", 950_000).settle(usd(70_000)).pnl == usd("9.5")


def test_break_even_hit_rate() -> None:
    """D-SCO-6: 1 / (1 + payout) = 55.56% at 80%."""
    assert round(break_even_hit_rate() * 100, 2) == 55.56


def test_bad_options_and_short_balance_are_refused() -> None:
    """D-TRD-1: a stake must be positive and covered by the balance; the expiry is aware."""
    with pytest.raises(SimError, match="cover"):
        place(usd(5), _option("up"))
    naive = datetime(2026, 1, 1)  # noqa: DTZ001
    with pytest.raises(SimError, match="timezone"):
        BinaryOption(direction=Direction.PUT, stake=usd(10), entry_price=usd(1), expiry=naive)
    with pytest.raises(SimError, match="stake"):
        BinaryOption(direction=Direction.PUT, stake=usd(0), entry_price=usd(1), expiry=EXPIRY)
