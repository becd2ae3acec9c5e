"""The ``weights_entries`` projection: every entry's value, recomputed from events.

For each weights season stream it folds the round prices (``RoundStarted``),
the account openings and the fills, and at every entry (decision, No decision,
skip) recomputes the portfolio's value, cash and holdings at that round's
prices through the shared engine. An entry whose recorded value disagrees is a
``ValueError``, which ``tradeleague verify`` reports as a mismatch (W-SCO-1,
C-4, DESIGN principle 4). The stored state per season is the latest prices,
the portfolios and each agent's entry count and last value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tradeleague.events import Event, EventKind
from tradeleague.events.weights import ENTRY_KINDS, STREAM_PREFIX
from tradeleague.money import Usd
from tradeleague.sim import ACCOUNT_KINDS, Portfolio, account_of, fold_account
from tradeleague.store.projection import register_projector

__all__ = ["WEIGHTS_ENTRIES", "WeightsEntriesProjector", "register"]

WEIGHTS_ENTRIES: Final = "weights_entries"
"""The registered name of the projection."""

_KINDS: Final = frozenset(
    {
        EventKind.ROUND_STARTED.value,
        *ACCOUNT_KINDS,
        *ENTRY_KINDS,
    }
)


def _dict(value: object, what: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise ValueError(f"{what}: expected an object")
    return value


class WeightsEntriesProjector:
    """Recompute every weights entry from prices and fills (see the module docstring).

    ``apply`` updates the season state it is given in place and returns it: the
    state holds every agent's book, so copying it per event would make a
    replay quadratic in the roster. Its callers own the state they pass (the
    store loads it from JSON, a rebuild starts from ``initial``).
    """

    kinds: frozenset[str] = _KINDS
    """The only kinds it folds: a refresh reads no other rows for it."""

    def __init__(self) -> None:
        self._priced: tuple[dict[str, object], dict[str, Usd]] | None = None
        """A round's prices as read from the state, and the same as amounts (`_amounts`)."""

    def _amounts(self, prices: dict[str, object]) -> dict[str, Usd]:
        """Return ``prices`` as amounts, converted once per round rather than once per entry.

        The state's prices object is replaced, never changed, at each round's
        start, so the object itself says whether the kept conversion is its
        own (it is held here, so no other object can take its identity).
        """
        kept = self._priced
        if kept is not None and kept[0] is prices:
            return kept[1]
        priced = {k: Usd(int(str(v))) for k, v in prices.items()}
        self._priced = (prices, priced)
        return priced

    def key(self, event: Event) -> str | None:
        """Return the season stream for the kinds it folds, else ``None``."""
        if event.stream.startswith(STREAM_PREFIX) and event.kind in _KINDS:
            return event.stream
        return None

    def initial(self) -> object:
        """Return an empty season."""
        return {"prices": {}, "books": {}, "entries": {}, "values": {}}

    def apply(self, state: object, event: Event) -> object:
        """Return the state after ``event``; raise ``ValueError`` on a wrong entry."""
        s = _dict(state, "state")
        books = _dict(s["books"], "books")
        p = event.payload_view
        if event.kind == EventKind.ROUND_STARTED:
            s["prices"] = dict(_mapping(p["prices"], "prices"))
        elif event.kind in ACCOUNT_KINDS:
            account = account_of(event.kind, p)
            before = books.get(account)
            book = None if before is None else Portfolio.from_state(_mapping(before, "book"))
            books[account] = fold_account(book, event.kind, p).state()
        else:
            prices = _dict(s["prices"], "prices")
            counts = _dict(s["entries"], "entries")
            values = _dict(s["values"], "values")
            agent = str(p["agent"])
            book = Portfolio.from_state(_mapping(books[agent], "book"))
            value = book.equity(self._amounts(prices))
            holdings = {k: str(int(v)) for k, v in sorted(book.positions.items())}
            recorded = (str(p["value"]), str(p["cash"]), dict(_mapping(p["holdings"], "holdings")))
            if recorded != (str(value), str(int(book.cash)), holdings):
                raise ValueError(
                    f"{event.kind} of {agent} at {p.get('round')}: recorded value "
                    f"{recorded[0]} but prices and fills give {value}"
                )
            counts[agent] = int(str(counts.get(agent, 0))) + 1
            values[agent] = str(value)
        return s


def _mapping(value: object, what: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{what}: expected an object")
    return value


def register() -> None:
    """Register the projection with the store (idempotent)."""
    register_projector(WEIGHTS_ENTRIES, _PROJECTOR, replace=True)


_PROJECTOR = WeightsEntriesProjector()
register()
