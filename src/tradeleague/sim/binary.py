"""Binary options for the direction arena (D-TRD-1..4, D-SCO-6).

A model's ``up`` is a call and ``down`` a put, for a fixed stake, on the
round's instrument with the round's expiry. At expiry a call wins if the exit
price is above the entry price, a put if below; an equal price is a draw and
returns the stake. A win returns the stake plus stake x payout (80%: +8.00 on
10.00), rounded down; a loss keeps the stake (-10.00). This is the arithmetic
the built-in paper broker uses; the arena itself reads balances back from
the broker (D-TRD-3).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from tradeleague.money import MICRO, Rounding, Usd, div_round
from tradeleague.sim.errors import SimError

__all__ = [
    "DEFAULT_PAYOUT_PPM",
    "BinaryOption",
    "Direction",
    "OptionResult",
    "Settlement",
    "break_even_hit_rate",
    "place",
]

DEFAULT_PAYOUT_PPM: Final = 800_000
"""The seed's payout: 80% of the stake on a win."""


class Direction(enum.Enum):
    """A binary option's kind: a call pays if the price rises, a put if it falls (D-TRD-2)."""

    CALL = "call"
    PUT = "put"

    @classmethod
    def from_answer(cls, answer: str) -> Direction:
        """Return the kind for an arena answer: ``up`` is a call, ``down`` a put."""
        if answer == "up":
            return cls.CALL
        if answer == "down":
            return cls.PUT
        raise ValueError(f"direction must be 'up' or 'down', got {answer!r}")


class OptionResult(enum.Enum):
    """How a binary option settled."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class Settlement:
    """A settled option.

    Attributes
    ----------
    outcome
        Win, loss or draw.
    exit_price
        The price it settled against.
    pnl
        Profit or loss: +stake x payout, -stake, or zero.
    credit
        What the broker pays back at close: stake + profit, nothing, or the stake.
    """

    outcome: OptionResult
    exit_price: Usd
    pnl: Usd
    credit: Usd


@dataclass(frozen=True, slots=True, kw_only=True)
class BinaryOption:
    """One binary option (D-TRD-1, D-TRD-2).

    Attributes
    ----------
    direction
        Call or put.
    stake
        Micro-dollars put at risk (the seed: 10.00).
    entry_price
        The round's entry price.
    expiry
        The exact expiry instant (timezone-aware).
    payout_ppm
        Profit on a win per unit of stake, in parts per million (80% = 800,000).
    """

    direction: Direction
    stake: Usd
    entry_price: Usd
    expiry: datetime
    payout_ppm: int = DEFAULT_PAYOUT_PPM

    def __post_init__(self) -> None:
        if self.stake <= 0:
            raise SimError("a stake must be positive")
        if self.entry_price <= 0:
            raise SimError("an entry price must be positive")
        if self.payout_ppm < 0:
            raise SimError("a payout must be >= 0")
        if self.expiry.tzinfo is None:
            raise SimError("an expiry must be timezone-aware")

    @property
    def win_profit(self) -> Usd:
        """Return the profit of a win: stake x payout, rounded down (D-TRD-4)."""
        return Usd(div_round(self.stake * self.payout_ppm, MICRO, Rounding.DOWN))

    def settle(self, exit_price: Usd) -> Settlement:
        """Settle against ``exit_price``: win, loss or draw (D-TRD-4)."""
        if exit_price <= 0:
            raise SimError("an exit price must be positive")
        if exit_price == self.entry_price:
            return Settlement(OptionResult.DRAW, exit_price, Usd(0), self.stake)
        rose = exit_price > self.entry_price
        if rose == (self.direction is Direction.CALL):
            profit = self.win_profit
            return Settlement(OptionResult.WIN, exit_price, profit, Usd(self.stake + profit))
        return Settlement(OptionResult.LOSS, exit_price, Usd(-self.stake), Usd(0))


def place(balance: Usd, option: BinaryOption) -> Usd:
    """Return the balance after the stake is taken; the credit comes back at settlement.

    Raises
    ------
    SimError
        If the balance cannot cover the stake (the broker rejects the trade).
    """
    if balance < option.stake:
        raise SimError(f"balance {balance} cannot cover the stake {option.stake}")
    return Usd(balance - option.stake)


def break_even_hit_rate(payout_ppm: int = DEFAULT_PAYOUT_PPM) -> float:
    """Return the hit rate at which expected profit is zero: 1 / (1 + payout) (D-SCO-6)."""
    return MICRO / (MICRO + payout_ppm)
