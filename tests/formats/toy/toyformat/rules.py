"""The toy's rules, pure: the answer, the round's target, the board.

An answer is one symbol of the round's universe, or ``CASH``; anything else is
no decision (``not_a_symbol``), and the agent keeps what it holds. A decision
moves the whole portfolio into the named symbol (or cash) at the round's close
through the shared rebalance, with its threshold, fee and slippage. The board
ranks agents by return on the starting cash, ties by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from tradeleague.money import Usd
from tradeleague.sim import Portfolio, position_value

__all__ = ["CASH", "MAX_ANSWER", "Pick", "Row", "board", "parse_pick", "targets", "value_of"]

CASH: Final = "CASH"
MAX_ANSWER: Final = 64
"""Characters of an answer read at most; a longer one is no decision."""


@dataclass(frozen=True, slots=True)
class Pick:
    """What one answer decided: a symbol (or ``CASH``), or the reason there is none."""

    symbol: str | None
    reason: str | None = None


def parse_pick(text: str | None, universe: Sequence[str]) -> Pick:
    """Return the pick ``text`` names, bounded and normalised first (upper case, no spaces)."""
    if text is None or len(text) > MAX_ANSWER:
        return Pick(None, "not_a_symbol")
    name = text.strip().upper()
    if name == CASH or name in universe:
        return Pick(name)
    return Pick(None, "not_a_symbol")


def targets(pick: str) -> dict[str, int]:
    """Return the rebalance's target weights (basis points) for ``pick``."""
    return {} if pick == CASH else {pick: 10_000}


def value_of(portfolio: Portfolio, prices: Mapping[str, Usd]) -> Usd:
    """Return the portfolio's value at ``prices`` (holdings rounded down, W-EXE-7)."""
    held = sum(position_value(q, prices[s]) for s, q in portfolio.positions.items())
    return Usd(portfolio.cash + held)


@dataclass(frozen=True, slots=True)
class Row:
    """One agent's line of the board."""

    rank: int
    agent: str
    value: Usd
    return_ppm: int
    decisions: int


def board(values: Mapping[str, Usd], decisions: Mapping[str, int], cash: Usd) -> list[Row]:
    """Return the board: by return (parts per million of the starting cash, rounded down)."""
    ppm = {a: (v - cash) * 1_000_000 // cash for a, v in values.items()}
    order = sorted(values, key=lambda a: (-ppm[a], a))
    return [Row(i + 1, a, values[a], ppm[a], decisions.get(a, 0)) for i, a in enumerate(order)]
