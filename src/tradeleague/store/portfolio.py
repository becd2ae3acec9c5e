"""The built-in ``portfolio`` projection: cash and positions per account.

It folds ``AccountOpened`` and ``OrderFilled`` events through the one account
fold of the shared engine (`tradeleague.sim.fold_account`), never arithmetic
of its own, so the
stored portfolio is exactly what replaying the fills gives (SPEC C-4, DESIGN
principle 4). The key of an account is ``"<stream>/<account>"``.

Payloads (micro-unit integers as canonical decimal strings)::

    AccountOpened  {"account": "agent-1", "cash": "10000000000"}
    OrderFilled    {"account": "agent-1", "fill": Fill.to_payload(), ...}

An ``OrderFilled`` payload may carry more fields (a round id, an order id);
the projection reads only ``account`` and ``fill``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Final

from tradeleague.events import Event, EventKind
from tradeleague.money import Usd
from tradeleague.sim import ACCOUNT_KINDS, Fill, Portfolio, account_of, fold_account
from tradeleague.sim.accounts import remember_fill

__all__ = [
    "PORTFOLIO",
    "PortfolioProjector",
    "account_key",
    "account_opened",
    "order_filled",
]

PORTFOLIO: Final = "portfolio"
"""The registered name of the portfolio projection."""


def account_key(stream: str, account: str) -> str:
    """Return the projection key of ``account`` in ``stream``."""
    return f"{stream}/{account}"


def account_opened(stream: str, account: str, cash: Usd, occurred_at: datetime) -> Event:
    """Return the ``AccountOpened`` event that gives ``account`` its starting ``cash``."""
    payload = {"account": account, "cash": str(int(cash))}
    return Event(stream, EventKind.ACCOUNT_OPENED, payload, occurred_at)


def order_filled(
    stream: str,
    account: str,
    fill: Fill,
    occurred_at: datetime,
    extra: Mapping[str, object] | None = None,
) -> Event:
    """Return the ``OrderFilled`` event recording ``fill`` on ``account``.

    Parameters
    ----------
    extra
        More payload fields (e.g. ``{"round": ...}``); ``account`` and ``fill``
        may not be overridden.
    """
    payload: dict[str, object] = dict(extra or {})
    if {"account", "fill"} & payload.keys():
        raise ValueError("extra payload fields may not be named 'account' or 'fill'")
    payload.update(account=account, fill=fill.to_payload())
    event = Event(stream, EventKind.ORDER_FILLED, payload, occurred_at)
    recorded = event.payload_view["fill"]
    if isinstance(recorded, dict):  # the folds of this event take the fill, not its text
        remember_fill(recorded, fill)
    return event


_BOOKS_KEPT: Final = 100_000
"""At most this many accounts' last portfolios are kept by a projector (see `apply`)."""


class PortfolioProjector:
    """Fold account openings and fills into `Portfolio.state` dicts (through `fold_account`)."""

    kinds: frozenset[str] = ACCOUNT_KINDS
    """The only kinds it folds: a refresh reads no other rows for it."""

    def __init__(self) -> None:
        # the portfolio behind each state this projector returned, by the state's identity:
        # a refresh hands the state back for the account's next event, and rebuilding the
        # portfolio from it (every position parsed again) was a third of a fill's fold
        self._books: dict[int, tuple[object, Portfolio]] = {}

    def key(self, event: Event) -> str | None:
        """Return ``"<stream>/<account>"`` for the two kinds it folds, else ``None``."""
        if event.kind in ACCOUNT_KINDS:
            try:
                return account_key(event.stream, account_of(event.kind, event.payload_view))
            except ValueError as exc:
                raise ValueError(f"{event.kind} {event.id}: {exc}") from None
        return None

    def initial(self) -> object:
        """Return ``None``: no account before its ``AccountOpened`` event."""
        return None

    def apply(self, state: object, event: Event) -> object:
        """Return the portfolio state after ``event``.

        A state this projector returned is a value its callers read and hand
        back unchanged (the refresh and verify do): its portfolio is kept, so
        the account's next event does not parse it again. Any other state (one
        read back from the store) is rebuilt from what it holds.

        Raises
        ------
        ValueError
            If an account is opened twice, a fill comes before the opening, or a
            payload is malformed (the engine's fill and payload errors are
            ``ValueError`` subclasses too).
        """
        if state is not None and not isinstance(state, Mapping):
            raise ValueError(f"portfolio state is not a mapping: {state!r}")
        before = None
        if state is not None:
            kept = self._books.get(id(state))
            before = kept[1] if kept is not None and kept[0] is state else None
            if before is None:
                before = Portfolio.from_state(state)
        after = fold_account(before, event.kind, event.payload_view)
        new_state = after.state()
        books = self._books
        if state is not None:
            books.pop(id(state), None)
        if len(books) >= _BOOKS_KEPT:
            books.clear()
        books[id(new_state)] = (new_state, after)
        return new_state
