"""A model's book: the portfolio, the carried theses and recent closes (SPEC T-MON-2, T-ACT-6).

The portfolio is the one engine's (``sim.Portfolio``); beside it each open
position carries its thesis, invalidation level and cost basis (and, once the
monitor saw its level break while it could not trade, that break: T-MON-1),
and each symbol closed whole remembers the direction and cycle of its close,
for the no-reopen rule. All pure values, rebuilt from events by the league.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tradeleague.money import Usd
from tradeleague.sim import Portfolio
from tradeleague.sim.portfolio import position_value

__all__ = ["Book", "Broken", "Closed", "Thesis", "book_from_payload", "book_payload"]


@dataclass(frozen=True, slots=True)
class Broken:
    """A break the monitor saw while the position could not trade (T-MON-1).

    The close waits for the first check at which the symbol trades (a stock:
    NYSE open). ``time`` is the check's instant (epoch seconds); ``level`` and
    ``price`` are the level then and the price that broke it, micro-dollars.
    """

    time: int
    level: int
    price: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Thesis:
    """What an open position carries (T-MON-2).

    Attributes
    ----------
    direction
        +1 long, -1 short.
    basis
        Cash paid to open what is still held, fees included (a short's is
        negative: the proceeds less fees); reduced pro rata on partial closes.
    invalidation_price
        The level the monitor closes at (T-MON-1), micro-dollars.
    thesis, invalidation
        The model's texts.
    confidence
        Hundredths (80..100).
    opened_cycle
        The cycle number the position was opened in (T-ACT-6).
    broken
        The break seen while the position could not trade, its close pending
        (T-MON-1); kept by a partial close or a new level, gone with the position.
    """

    direction: int
    basis: int
    invalidation_price: int
    thesis: str
    invalidation: str
    confidence: int
    opened_cycle: int
    broken: Broken | None = None


@dataclass(frozen=True, slots=True)
class Closed:
    """A whole close: its direction and cycle (a monitor close counts for the cycle before it)."""

    direction: int
    cycle: int


@dataclass(frozen=True, slots=True)
class Book:
    """A model's account in the thesis league."""

    portfolio: Portfolio
    theses: Mapping[str, Thesis] = field(default_factory=dict)
    closed: Mapping[str, Closed] = field(default_factory=dict)

    @classmethod
    def open(cls, cash: Usd) -> Book:
        """Return a book holding ``cash`` only."""
        return cls(Portfolio.open(cash))

    def unrealised(self, symbol: str, price: int) -> int:
        """Return the position's value at ``price`` less its basis (micro-dollars)."""
        thesis = self.theses.get(symbol)
        held = self.portfolio.qty(symbol)
        if thesis is None or not held:
            return 0
        return position_value(held, price) - thesis.basis

    def budget_left(self, prices: Mapping[str, Usd]) -> int:
        """Return equity less gross exposure: room for new positions (T-ACT-5), at least 0."""
        return max(0, self.portfolio.equity(prices) - self.portfolio.notional(prices))


def _thesis_payload(t: Thesis) -> dict[str, object]:
    row: dict[str, object] = {
        "direction": t.direction,
        "basis": str(t.basis),
        "invalidation_price": str(t.invalidation_price),
        "thesis": t.thesis,
        "invalidation": t.invalidation,
        "confidence": t.confidence,
        "opened_cycle": t.opened_cycle,
    }
    if t.broken is not None:  # only a pending close carries it (T-MON-1)
        b = t.broken
        row["broken"] = {"time": b.time, "level": str(b.level), "price": str(b.price)}
    return row


def book_payload(book: Book) -> dict[str, object]:
    """Return the book's canonical JSON form (micro-unit integers as strings)."""
    return {
        "portfolio": book.portfolio.state(),
        "theses": {s: _thesis_payload(t) for s, t in sorted(book.theses.items())},
        "closed": {
            s: {"direction": c.direction, "cycle": c.cycle} for s, c in sorted(book.closed.items())
        },
    }


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"expected an integer, got {value!r}")
    return int(value)


def book_from_payload(payload: Mapping[str, object]) -> Book:
    """Rebuild a book from `book_payload` output.

    Raises
    ------
    ValueError
        If the payload is not a book's form.
    """
    portfolio, theses, closed = payload["portfolio"], payload["theses"], payload["closed"]
    if not (
        isinstance(portfolio, Mapping)
        and isinstance(theses, Mapping)
        and isinstance(closed, Mapping)
    ):
        raise ValueError("a book holds portfolio, theses and closed objects")
    carried: dict[str, Thesis] = {}
    for symbol, t in theses.items():
        if not isinstance(t, Mapping):
            raise ValueError("a thesis is an object")
        b = t.get("broken")
        if b is not None and not isinstance(b, Mapping):
            raise ValueError("a break is an object")
        carried[str(symbol)] = Thesis(
            direction=_int(t["direction"]),
            basis=_int(t["basis"]),
            invalidation_price=_int(t["invalidation_price"]),
            thesis=str(t["thesis"]),
            invalidation=str(t["invalidation"]),
            confidence=_int(t["confidence"]),
            opened_cycle=_int(t["opened_cycle"]),
            broken=None
            if b is None
            else Broken(_int(b["time"]), _int(b["level"]), _int(b["price"])),
        )
    recent: dict[str, Closed] = {}
    for symbol, c in closed.items():
        if not isinstance(c, Mapping):
            raise ValueError("a close is an object")
        recent[str(symbol)] = Closed(_int(c["direction"]), _int(c["cycle"]))
    return Book(Portfolio.from_state(portfolio), carried, recent)
