"""Fills: the events that move a portfolio, and their exact JSON form.

A fill records one executed market order: the side, a positive quantity, the
fill price (per whole unit), the gross value that moved, and the two costs.
Everything is integer micro-units. A fill is checked on construction so that a
replayed event log can never carry an inconsistent one: the value must be the
quantity times the price rounded *against* the trader (W-EXE-7): up for a buy
or a cover (cash paid), down for a sell or a short (cash received).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Final

from tradeleague.money import MICRO, Qty, Rounding, Usd, div_round
from tradeleague.sim.errors import FillError, PayloadError

__all__ = ["Fill", "Side", "fill_value", "parse_int_str"]


class Side(enum.Enum):
    """The side of a market order (S-API-2, S-FIL-4)."""

    BUY = "buy"
    """Open or extend a long position."""
    SELL = "sell"
    """Reduce or close a long position."""
    SHORT = "short"
    """Open or extend a short position."""
    COVER = "cover"
    """Reduce or close a short position."""

    @property
    def sign(self) -> int:
        """Return +1 where the side adds to the position, -1 where it takes away."""
        return 1 if self is Side.BUY or self is Side.COVER else -1

    @property
    def pays(self) -> bool:
        """Return whether the side pays cash (buy, cover) rather than receiving it."""
        return self is Side.BUY or self is Side.COVER


_SIDES: Final = {s.value: s for s in Side}
_INT_RE: Final = re.compile(r"-?(0|[1-9][0-9]*)")
ZERO_USD: Final = Usd(0)
"""Zero micro-dollars, the default cost."""
_FILL_KEYS: Final = frozenset({"symbol", "side", "qty", "price", "value", "fee", "slippage"})


def fill_value(quantity: int, price: int, side: Side) -> Usd:
    """Return the gross value of a fill, rounded against the trader (W-EXE-7).

    Parameters
    ----------
    quantity
        Positive quantity in micro-units.
    price
        Fill price per whole unit, in micro-dollars.
    side
        The order side: a paying side rounds up, a receiving side down.
    """
    if side is Side.BUY or side is Side.COVER:
        return Usd(div_round(quantity * price, MICRO, Rounding.UP))
    return Usd(div_round(quantity * price, MICRO, Rounding.DOWN))


def parse_int_str(raw: object, what: str) -> int:
    """Return the integer written canonically in ``raw`` (``"-12"``, never ``"+12"``, ``"012"``).

    Raises
    ------
    PayloadError
        If ``raw`` is not a string holding a canonical decimal integer.
    """
    if not isinstance(raw, str) or _INT_RE.fullmatch(raw) is None or raw == "-0":
        raise PayloadError(f"{what}: expected a canonical integer string, got {raw!r}")
    return int(raw)


@dataclass(frozen=True, slots=True)
class Fill:
    """One executed market order: the event a portfolio applies.

    Attributes
    ----------
    symbol
        The instrument.
    side
        Buy, sell, short or cover.
    qty
        Quantity filled, positive, in micro-units.
    price
        Fill price per whole unit (after any price slippage), micro-dollars.
    value
        Gross value, ``qty x price`` rounded against the trader; see `fill_value`.
    fee
        Fee paid, micro-dollars, >= 0.
    slippage
        Slippage charged as a cost on value, micro-dollars, >= 0 (zero when the
        slippage is already in ``price``).
    """

    symbol: str
    side: Side
    qty: Qty
    price: Usd
    value: Usd
    fee: Usd = ZERO_USD
    slippage: Usd = ZERO_USD

    def __post_init__(self) -> None:
        quantity, price, side = self.qty, self.price, self.side
        expected = (
            div_round(quantity * price, MICRO, Rounding.UP)
            if side is Side.BUY or side is Side.COVER
            else div_round(quantity * price, MICRO, Rounding.DOWN)
        )
        if (
            quantity > 0
            and price > 0
            and self.fee >= 0
            and self.slippage >= 0
            and self.value == expected
            and self.symbol
        ):
            return
        if not self.symbol:
            raise FillError("a fill needs a symbol")
        if quantity <= 0:
            raise FillError(f"{self.symbol}: fill quantity must be positive, got {quantity}")
        if price <= 0:
            raise FillError(f"{self.symbol}: fill price must be positive, got {price}")
        if self.fee < 0 or self.slippage < 0:
            raise FillError(f"{self.symbol}: fill costs must be >= 0")
        raise FillError(
            f"{self.symbol}: value {self.value} is not qty x price rounded "
            f"against the trader ({expected})"
        )

    @classmethod
    def at(
        cls,
        symbol: str,
        side: Side,
        quantity: Qty,
        price: Usd,
        fee: Usd = ZERO_USD,
        slippage: Usd = ZERO_USD,
    ) -> Fill:
        """Build a fill whose value is computed from quantity and price."""
        return cls(symbol, side, quantity, price, fill_value(quantity, price, side), fee, slippage)

    @property
    def cash_delta(self) -> Usd:
        """Return the change in cash: ``-(value + costs)`` if paying, ``value - costs`` else."""
        side = self.side
        if side is Side.BUY or side is Side.COVER:
            return Usd(-(self.value + self.fee + self.slippage))
        return Usd(self.value - self.fee - self.slippage)

    @property
    def qty_delta(self) -> Qty:
        """Return the signed change in the position."""
        side = self.side
        return Qty(self.qty if side is Side.BUY or side is Side.COVER else -self.qty)

    def to_payload(self) -> dict[str, object]:
        """Return the canonical JSON-safe form: integers as decimal strings of micro-units."""
        return {
            "symbol": self.symbol,
            "side": self.side.value,
            "qty": str(self.qty),
            "price": str(self.price),
            "value": str(self.value),
            "fee": str(self.fee),
            "slippage": str(self.slippage),
        }

    @classmethod
    def from_payload(cls, payload: dict[str, object]) -> Fill:
        """Rebuild a fill from `to_payload` output, exactly.

        Raises
        ------
        PayloadError
            If a key is missing or unknown, or a field is not canonical.
        FillError
            If the fields do not form a consistent fill.
        """
        keys = set(payload)
        if keys != _FILL_KEYS:
            raise PayloadError(
                f"fill payload keys: missing {sorted(_FILL_KEYS - keys)}, "
                f"unknown {sorted(keys - _FILL_KEYS)}"
            )
        symbol = payload["symbol"]
        if not isinstance(symbol, str):
            raise PayloadError(f"symbol: expected a string, got {symbol!r}")
        side_raw = payload["side"]
        side = _SIDES.get(side_raw) if isinstance(side_raw, str) else None
        if side is None:
            raise PayloadError(f"side: expected one of {sorted(_SIDES)}, got {side_raw!r}")
        return cls(
            symbol,
            side,
            Qty(parse_int_str(payload["qty"], "qty")),
            Usd(parse_int_str(payload["price"], "price")),
            Usd(parse_int_str(payload["value"], "value")),
            Usd(parse_int_str(payload["fee"], "fee")),
            Usd(parse_int_str(payload["slippage"], "slippage")),
        )
