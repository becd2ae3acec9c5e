"""The batch fill kernel: a whole order stream in arrays, the same rules as `execute_order`.

`execute_batch` takes the orders of a backtest as arrays (symbol index, side,
quantity, quoted price: e.g. the next bar's open) and runs them in order
against one account, each filled whole or rejected with the reason code
`execute_order` gives (S-FIL-1..4, W-PF-2), with the same integer money: a
paying side's value rounded up, a receiving side's down, fee and slippage
rates rounded up. It returns every order's outcome and the final account.

The loop is one plain function over integers (``_kernel``), the reference.
When numba is installed (``pip install 'tradeleague[fast]'``) the same
function is compiled, and ``execute_batch`` runs the compiled one unless told
not to; an equality test ties both to `execute_order`. It knows rate-based
costs, fills at the quoted price, and no leverage cap: other rules are an
error, never a silent difference.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from tradeleague.money import MICRO, Qty, Usd
from tradeleague.sim.costs import NoPriceSlippage, PpmFee, PpmSlippage, ZeroFee, ZeroSlippage
from tradeleague.sim.errors import SimError
from tradeleague.sim.fill import Side
from tradeleague.sim.orders import OrderRules, RejectReason
from tradeleague.sim.portfolio import Portfolio

__all__ = ["FILLED", "REASONS", "SIDES", "BatchResult", "compiled_available", "execute_batch"]

Ints = npt.NDArray[np.int64]

SIDES: Final = (Side.BUY, Side.SELL, Side.SHORT, Side.COVER)
"""Side codes of the ``sides`` array: 0 buy, 1 sell, 2 short, 3 cover."""

FILLED: Final = 0
"""The status of a filled order; any other status is ``REASONS[status]``."""

REASONS: Final[dict[int, RejectReason]] = {
    1: RejectReason.INVALID_QUANTITY,
    2: RejectReason.NO_PRICE,
    3: RejectReason.SHORTING_DISABLED,
    4: RejectReason.POSITION_IS_SHORT,
    5: RejectReason.POSITION_IS_LONG,
    6: RejectReason.EXCEEDS_POSITION,
    7: RejectReason.INSUFFICIENT_CASH,
}
"""Rejection codes of the ``status`` array, in `execute_order`'s order of checks."""

_LIMIT: Final = 2**62
"""No product or sum the kernel forms may pass this (int64 holds up to 2**63 - 1)."""

_OVERFLOW: Final = 99
"""The status of an order whose amounts would pass ``_LIMIT``: the batch stops there."""


def _kernel(  # the reference; numba compiles this very function when it is installed
    cash: int,
    positions: Any,
    symbols: Any,
    sides: Any,
    quantities: Any,
    prices: Any,
    fee_ppm: int,
    slip_ppm: int,
    allow_short: bool,
    allow_negative_cash: bool,
    status: Any,
    values: Any,
    fees: Any,
    slips: Any,
) -> int:
    for i in range(len(symbols)):
        s = symbols[i]
        side = sides[i]
        q = quantities[i]
        price = prices[i]
        held = positions[s]
        if q <= 0:
            status[i] = 1
            continue
        if price <= 0:
            status[i] = 2
            continue
        if side == 2:
            if not allow_short:
                status[i] = 3
                continue
            if held > 0:
                status[i] = 5
                continue
        elif side == 0:
            if held < 0:
                status[i] = 4
                continue
        elif side == 1:
            if q > held:
                status[i] = 6
                continue
        elif q > -held:
            status[i] = 6
            continue
        # q x price / MICRO without forming q x price, which passes 2**63 for fills of
        # a few million dollars: q = whole x MICRO + part, each product stays small.
        whole = q // MICRO
        part = q - whole * MICRO
        if (
            price > _LIMIT // MICRO
            or whole > _LIMIT // price
            or abs(held) + q > _LIMIT
            or abs(cash) > _LIMIT
        ):
            status[i] = _OVERFLOW  # 64-bit integers would wrap: the caller raises
            return cash
        paying = side == 0 or side == 3
        if paying:
            value = whole * price - ((-part * price) // MICRO)
        else:
            value = whole * price + (part * price) // MICRO
        fee = -((-value * fee_ppm) // MICRO)
        slip = -((-value * slip_ppm) // MICRO)
        after = cash - value - fee - slip if paying else cash + value - fee - slip
        if not allow_negative_cash and after < 0:
            status[i] = 7
            continue
        status[i] = 0
        values[i] = value
        fees[i] = fee
        slips[i] = slip
        cash = after
        positions[s] = held + q if side == 0 or side == 3 else held - q
    return cash


def _compile() -> Callable[..., int] | None:
    if importlib.util.find_spec("numba") is None:
        return None
    import numba  # type: ignore[import-not-found, unused-ignore]

    compiled: Callable[..., int] = numba.njit(cache=False, nogil=True)(_kernel)
    return compiled


_COMPILED: list[Callable[..., int] | None] = []


def compiled_available() -> bool:
    """Return whether the compiled kernel (numba) can run here."""
    if not _COMPILED:
        _COMPILED.append(_compile())
    return _COMPILED[0] is not None


@dataclass(frozen=True, slots=True)
class BatchResult:
    """Every order's outcome, in order, and the account after the last.

    Attributes
    ----------
    status
        Per order: ``FILLED`` or a key of ``REASONS``.
    values, fees, slippage
        Per order: the fill's value and costs (micro-dollars; zero if rejected).
    portfolio
        The account after every fill.
    """

    status: npt.NDArray[np.int8]
    values: Ints
    fees: Ints
    slippage: Ints
    portfolio: Portfolio


def _rates(rules: OrderRules) -> tuple[int, int]:
    if rules.leverage_cap is not None or not isinstance(rules.price_slippage, NoPriceSlippage):
        raise SimError("the batch kernel fills at the quoted price, with no leverage cap")
    if isinstance(rules.fee, PpmFee):
        fee = rules.fee.rate_ppm
    elif isinstance(rules.fee, ZeroFee):
        fee = 0
    else:
        raise SimError("the batch kernel knows only rate-based fees")
    if isinstance(rules.slippage, PpmSlippage):
        slip = rules.slippage.rate_ppm
    elif isinstance(rules.slippage, ZeroSlippage):
        slip = 0
    else:
        raise SimError("the batch kernel knows only rate-based slippage")
    if fee > MICRO or slip > MICRO:
        raise SimError("the batch kernel takes cost rates of at most 100%")
    return fee, slip


def execute_batch(
    portfolio: Portfolio,
    universe: Sequence[str],
    symbols: Ints,
    sides: Ints,
    quantities: Ints,
    prices: Ints,
    rules: OrderRules,
    *,
    compiled: bool = True,
) -> BatchResult:
    """Run the order stream in order against ``portfolio``, as `execute_order` one by one.

    Parameters
    ----------
    portfolio
        The account before the first order; it may hold only symbols of ``universe``.
    universe
        The symbols; ``symbols`` holds indices into it.
    symbols, sides, quantities, prices
        One entry per order: symbol index, side code (`SIDES`), quantity in
        micro-units, quoted price in micro-dollars (zero or less: no price).
    rules
        Shorting and cash limits and rate-based costs (no leverage cap).
    compiled
        Use the compiled kernel when numba is installed.

    Raises
    ------
    SimError
        On arrays of different lengths, an index or side out of range, a held
        symbol outside ``universe``, unsupported rules, or amounts that could
        pass 2**62 (the compiled kernel's integers are 64-bit).
    """
    fee_ppm, slip_ppm = _rates(rules)
    n = len(symbols)
    if not len(sides) == len(quantities) == len(prices) == n:
        raise SimError("symbols, sides, quantities and prices must have one entry per order")
    index = {s: i for i, s in enumerate(universe)}
    if any(s not in index for s in portfolio.positions):
        raise SimError("the portfolio holds a symbol outside the universe")
    if n and (symbols.min() < 0 or symbols.max() >= len(universe)):
        raise SimError("a symbol index is out of range")
    if n and (sides.min() < 0 or sides.max() > 3):
        raise SimError("a side code is out of range")
    positions = np.zeros(len(universe), dtype=np.int64)
    for s, q in portfolio.positions.items():
        positions[index[s]] = q
    status = np.zeros(n, dtype=np.int8)
    values = np.zeros(n, dtype=np.int64)
    fees = np.zeros(n, dtype=np.int64)
    slips = np.zeros(n, dtype=np.int64)
    kernel = _COMPILED[0] if compiled and compiled_available() else None
    if kernel is None:
        held: list[int] = positions.tolist()
        cash = _kernel(
            int(portfolio.cash),
            held,
            symbols.tolist(),
            sides.tolist(),
            quantities.tolist(),
            prices.tolist(),
            fee_ppm,
            slip_ppm,
            rules.allow_short,
            rules.allow_negative_cash,
            status,
            values,
            fees,
            slips,
        )
        positions = np.array(held, dtype=np.int64)
    else:
        cash = kernel(
            np.int64(portfolio.cash),
            positions,
            *(
                np.ascontiguousarray(a, dtype=np.int64)
                for a in (symbols, sides, quantities, prices)
            ),
            np.int64(fee_ppm),
            np.int64(slip_ppm),
            rules.allow_short,
            rules.allow_negative_cash,
            status,
            values,
            fees,
            slips,
        )
    if (status == _OVERFLOW).any():
        raise SimError("amounts too large for the batch kernel; use execute_order")
    after = {universe[i]: Qty(int(q)) for i, q in enumerate(positions.tolist()) if q}
    return BatchResult(status, values, fees, slips, Portfolio(Usd(int(cash)), after))
