"""The portfolio: cash and signed positions, rebuilt by applying fills.

A portfolio is an immutable value. `Portfolio.apply` is pure: it returns a new
portfolio and leaves the old one as it was, so replaying a log of fills from
`Portfolio.open` rebuilds the same state every time (DESIGN principle 4).

Valuation is conservative (W-EXE-7): a long holding is worth ``qty x price``
rounded down and a short liability costs ``|qty| x price`` rounded up. Both are
``floor(qty x price)``, which is why `position_value` is a single floor.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from tradeleague.money import MICRO, Qty, Rounding, Usd, div_round
from tradeleague.sim.errors import FillError, PayloadError, SimError
from tradeleague.sim.fill import Fill, Side, parse_int_str

__all__ = ["Portfolio", "position_value"]

_STATE_KEYS: Final = frozenset({"cash", "positions"})


def position_value(quantity: int, price: int) -> Usd:
    """Return the conservative value of a signed position at ``price``.

    Long: ``qty x price`` rounded down. Short: minus ``|qty| x price`` rounded up.
    """
    return Usd(div_round(quantity * price, MICRO, Rounding.DOWN))


@dataclass(frozen=True, slots=True)
class Portfolio:
    """Cash and signed positions (long > 0, short < 0), in micro-units.

    Build one with `Portfolio.open` and change it only with `apply`. The
    ``positions`` mapping never holds a zero and must not be mutated.
    """

    cash: Usd
    positions: Mapping[str, Qty] = field(default_factory=dict)

    @classmethod
    def open(cls, cash: Usd) -> Portfolio:
        """Return a portfolio holding ``cash`` and no positions."""
        return cls(Usd(cash), {})

    def qty(self, symbol: str) -> Qty:
        """Return the signed quantity held of ``symbol`` (zero if none)."""
        return self.positions.get(symbol, Qty(0))

    def apply(self, fill: Fill) -> Portfolio:
        """Return the portfolio after ``fill``; ``self`` is unchanged.

        The side must fit the position: a buy needs a flat or long position, a
        short a flat or short one; a sell may not exceed the long holding nor a
        cover the short one. Cash limits are the order engine's business (a
        format may allow negative cash), not this method's.

        Raises
        ------
        FillError
            If the fill's side does not fit the current position.
        """
        symbol = fill.symbol
        positions = self.positions
        held = positions.get(symbol, 0)
        side = fill.side
        if side is Side.BUY:
            if held < 0:
                raise FillError(f"{symbol}: buy against a short position; cover it first")
            new = held + fill.qty
            cash = self.cash - fill.value - fill.fee - fill.slippage
        elif side is Side.SELL:
            if fill.qty > held:
                raise FillError(f"{symbol}: sell of {fill.qty} exceeds the long holding {held}")
            new = held - fill.qty
            cash = self.cash + fill.value - fill.fee - fill.slippage
        elif side is Side.SHORT:
            if held > 0:
                raise FillError(f"{symbol}: short against a long position; sell it first")
            new = held - fill.qty
            cash = self.cash + fill.value - fill.fee - fill.slippage
        else:
            if fill.qty > -held:
                raise FillError(f"{symbol}: cover of {fill.qty} exceeds the short {-held}")
            new = held + fill.qty
            cash = self.cash - fill.value - fill.fee - fill.slippage
        updated = dict(positions)
        if new:
            updated[symbol] = Qty(new)
        else:
            del updated[symbol]
        return Portfolio(Usd(cash), updated)

    def apply_all(self, fills: Iterable[Fill]) -> Portfolio:
        """Return the portfolio after every fill in order."""
        out = self
        for fill in fills:
            out = out.apply(fill)
        return out

    def _price(self, prices: Mapping[str, Usd], symbol: str) -> int:
        try:
            return prices[symbol]
        except KeyError:
            raise SimError(f"no price for held symbol {symbol}") from None

    def holdings_value(self, prices: Mapping[str, Usd]) -> Usd:
        """Return the conservative value of every position at ``prices``.

        Raises
        ------
        SimError
            If a held symbol has no price.
        """
        try:  # floor division is Rounding.DOWN: a value every entry and every round takes
            return Usd(sum([q * prices[s] // MICRO for s, q in self.positions.items()]))
        except KeyError as missing:
            raise SimError(f"no price for held symbol {missing.args[0]}") from None

    def equity(self, prices: Mapping[str, Usd]) -> Usd:
        """Return cash plus the conservative value of every position (W-EXE-1)."""
        return Usd(self.cash + self.holdings_value(prices))

    def notional(self, prices: Mapping[str, Usd]) -> Usd:
        """Return the gross exposure ``sum |qty x price|``, each rounded up (S-FIL-5)."""
        return Usd(
            sum(
                div_round(abs(q) * self._price(prices, s), MICRO, Rounding.UP)
                for s, q in self.positions.items()
            )
        )

    def state(self) -> dict[str, object]:
        """Return the canonical JSON-safe state: micro-unit integers as strings.

        Positions are sorted by symbol; zero positions never appear.
        """
        return {
            "cash": str(self.cash),
            "positions": {s: str(self.positions[s]) for s in sorted(self.positions)},
        }

    @classmethod
    def from_state(cls, state: Mapping[str, object]) -> Portfolio:
        """Rebuild a portfolio from `state` output.

        Raises
        ------
        PayloadError
            If the state is not in canonical form.
        """
        if set(state) != _STATE_KEYS:
            raise PayloadError(f"portfolio state keys must be {sorted(_STATE_KEYS)}")
        raw_positions = state["positions"]
        if not isinstance(raw_positions, Mapping):
            raise PayloadError("positions: expected a mapping")
        positions: dict[str, Qty] = {}
        for symbol, raw in raw_positions.items():
            if not isinstance(symbol, str) or not symbol:
                raise PayloadError(f"position symbol: expected a string, got {symbol!r}")
            amount = parse_int_str(raw, f"position {symbol}")
            if amount == 0:
                raise PayloadError(f"position {symbol}: zero positions are not stored")
            positions[symbol] = Qty(amount)
        return cls(Usd(parse_int_str(state["cash"], "cash")), positions)
