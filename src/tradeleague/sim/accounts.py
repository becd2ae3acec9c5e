"""The one fold of account events into a portfolio (C-4, DESIGN principle 4).

An account is opened by ``AccountOpened`` (its starting cash) and changed only
by ``OrderFilled`` (one `Fill` each). `fold_account` is the only code that
turns those payloads into a `Portfolio`: the store's ``portfolio`` projection,
the weights season state and the weights entries projection all call it, so a
portfolio means the same thing wherever it is read back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tradeleague.events import EventKind
from tradeleague.money import Usd
from tradeleague.sim.errors import PayloadError
from tradeleague.sim.fill import Fill, parse_int_str
from tradeleague.sim.portfolio import Portfolio

__all__ = ["ACCOUNT_KINDS", "account_of", "fold_account"]

ACCOUNT_KINDS: Final = frozenset({EventKind.ACCOUNT_OPENED.value, EventKind.ORDER_FILLED.value})
"""The kinds `fold_account` folds."""


def account_of(kind: str, payload: Mapping[str, object]) -> str:
    """Return the account an ``AccountOpened``/``OrderFilled`` payload names.

    Raises
    ------
    PayloadError
        If ``account`` is not a non-empty string.
    """
    account = payload.get("account")
    if not isinstance(account, str) or not account:
        raise PayloadError(f"{kind}: payload needs a non-empty 'account' string")
    return account


def fold_account(
    portfolio: Portfolio | None, kind: str, payload: Mapping[str, object]
) -> Portfolio:
    """Return the portfolio after one account event.

    Parameters
    ----------
    portfolio
        The account's portfolio so far; ``None`` before its ``AccountOpened``.
    kind
        ``AccountOpened`` (opens with ``cash``) or ``OrderFilled`` (applies ``fill``).
    payload
        The event's payload.

    Raises
    ------
    ValueError
        If an account is opened twice, a fill comes before the opening, the
        kind is neither, or a payload is malformed (`PayloadError` and the
        engine's fill errors are ``ValueError`` subclasses).
    """
    account = account_of(kind, payload)
    if kind == EventKind.ACCOUNT_OPENED:
        if portfolio is not None:
            raise ValueError(f"account {account!r} is opened twice")
        return Portfolio.open(Usd(parse_int_str(payload.get("cash"), "cash")))
    if kind != EventKind.ORDER_FILLED:
        raise ValueError(f"{kind} is not an account event")
    if portfolio is None:
        raise ValueError(f"fill for account {account!r} before it was opened")
    fill = payload.get("fill")
    if not isinstance(fill, dict):
        raise PayloadError(f"{kind}: payload needs a 'fill' object")
    return portfolio.apply(Fill.from_payload(fill))
