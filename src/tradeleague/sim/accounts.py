"""The one fold of account events into a portfolio (C-4, DESIGN principle 4).

An account is opened by ``AccountOpened`` (its starting cash) and changed only
by ``OrderFilled`` (one `Fill` each). `fold_account` is the only code that
turns those payloads into a `Portfolio`: the store's ``portfolio`` projection,
the weights season state and the weights entries projection all call it, so a
portfolio means the same thing wherever it is read back.

A fill's payload is parsed once per payload object: the season state and the
``portfolio`` projection fold the same events (the same shared payload view,
`Event.payload_view`) one after the other, and the second fold takes the
`Fill` the first made (`_fill_of`). The code that records a fill hands its
`Fill` over with the event's payload (`remember_fill`), so a replay that
folds the events it has just made parses no fill at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tradeleague.events import EventKind
from tradeleague.money import Usd
from tradeleague.sim.errors import PayloadError
from tradeleague.sim.fill import Fill, parse_int_str
from tradeleague.sim.portfolio import Portfolio

__all__ = ["ACCOUNT_KINDS", "account_of", "fold_account", "remember_fill"]

_FILLS_KEPT: Final = 100_000
"""Fill payloads whose parsed `Fill` is kept (as many as the store keeps appended events)."""

_PARSED: dict[int, tuple[Mapping[str, object], Fill]] = {}
"""Parsed fills by the id of their payload; the payload is held, so its id is not reused."""

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
    return portfolio.apply(_fill_of(fill))


def remember_fill(payload: Mapping[str, object], fill: Fill) -> None:
    """Keep ``fill`` as what ``payload`` parses to, so no fold of it parses it again.

    Only for a payload that is ``fill.to_payload()`` as an event decoded it
    (`Event.payload_view` of the payload the fill was recorded with): the
    round trip gives the same fill back exactly (a property test holds it).
    """
    if len(_PARSED) >= _FILLS_KEPT:
        _PARSED.clear()
    _PARSED[id(payload)] = (payload, fill)


def _fill_of(payload: dict[str, object]) -> Fill:
    """Return `Fill.from_payload` of ``payload``, parsed once per payload object.

    Payload views are read-only by contract (`Event.payload_view`), so the
    same object always holds the same fill. A dict insertion and lookup are
    atomic under the GIL: threads folding at once at worst parse twice.
    """
    kept = _PARSED.get(id(payload))
    if kept is not None and kept[0] is payload:
        return kept[1]
    fill = Fill.from_payload(payload)
    if len(_PARSED) >= _FILLS_KEPT:
        _PARSED.clear()
    _PARSED[id(payload)] = (payload, fill)
    return fill
