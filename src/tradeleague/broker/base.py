"""The broker interface: binary calls and puts, close events, balances (SPEC D-TRD-1..5).

The arena never decides an outcome itself: it places a binary option with a
broker, takes the broker's close event as the result (win, loss or draw, with
the payout actually applied) and reads every account's balance back from the
broker after each round (D-TRD-3). A broker is an adapter; the built-in one is
``PaperBroker``. Faults are values: a refused order is a ``Rejected`` with the
broker's error code (the ``trade_rejected`` skip), and a close that never comes
is simply absent (the ``unsettled`` skip). A trade with no close event by the
grace after expiry is then voided with the broker (``void``): its stake comes
back and it never settles later (D-SKP-1: "voided, not guessed").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol, runtime_checkable

from tradeleague.money import Usd
from tradeleague.sim import Direction, OptionResult

__all__ = ["BinaryOrder", "Broker", "CloseEvent", "Placed", "Rejected", "RestorableBroker"]

_MS = timedelta(milliseconds=1)


@dataclass(frozen=True, slots=True, kw_only=True)
class BinaryOrder:
    """A binary option to place: ``up`` is a call, ``down`` a put (D-TRD-2).

    Attributes
    ----------
    account
        The broker account (one per model, D-TRD-1).
    kind
        Call or put.
    symbol
        The instrument.
    stake
        Micro-dollars at risk.
    strike
        The price the option is read against (the round's entry price).
    placed_at
        When the order is sent.
    expiry
        The round's expiry; the duration is ``expiry - placed_at`` (D-RND-2).
    client_ref
        The arena's reference (round and model), echoed in the close event.
    """

    account: str
    kind: Direction
    symbol: str
    stake: Usd
    strike: Usd
    placed_at: datetime
    expiry: datetime
    client_ref: str

    @property
    def duration_ms(self) -> int:
        """Return the option's duration in whole milliseconds (rounded down)."""
        return (self.expiry - self.placed_at) // _MS


@dataclass(frozen=True, slots=True, kw_only=True)
class Placed:
    """An accepted order."""

    trade_id: str
    order: BinaryOrder
    payout_ppm: int
    """The payout the broker applies to this trade, in parts per million of the stake."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejected:
    """A refused order: the broker's error code and message (D-SKP-1 ``trade_rejected``)."""

    code: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CloseEvent:
    """The broker's verdict on one trade (D-TRD-3, D-TRD-4).

    Attributes
    ----------
    trade_id, account, client_ref
        Which trade.
    kind
        Call or put, as placed.
    outcome
        Win, loss or draw, exactly as the broker settled it.
    entry_price, exit_price
        The prices the broker read the option against.
    pnl
        The profit or loss the broker booked (+stake x payout, -stake, 0).
    payout_ppm
        The payout actually applied.
    closed_at
        When the broker reported the close.
    """

    trade_id: str
    account: str
    client_ref: str
    kind: Direction
    outcome: OptionResult
    entry_price: Usd
    exit_price: Usd
    pnl: Usd
    payout_ppm: int
    closed_at: datetime


@runtime_checkable
class Broker(Protocol):
    """What the arena needs of a broker."""

    async def open_account(self, account: str, balance: Usd) -> None:
        """Open ``account`` (or reset it, for a new season) at ``balance``."""
        ...

    async def place(self, order: BinaryOrder) -> Placed | Rejected:
        """Place ``order``; a refusal is a value, never an exception."""
        ...

    async def closes(self, trade_ids: Sequence[str]) -> list[CloseEvent]:
        """Return the close events reported so far for ``trade_ids``."""
        ...

    async def balance(self, account: str) -> Usd:
        """Return ``account``'s balance as the broker holds it."""
        ...

    async def void(self, trade_ids: Sequence[str]) -> None:
        """Void ``trade_ids``: return each stake, never settle or report them afterwards.

        Called for trades with no close event by the grace (``unsettled``) and
        for the trades of a round voided by a league fault.
        """
        ...


@runtime_checkable
class RestorableBroker(Protocol):
    """A broker whose book lives in the arena's process (the paper broker).

    An arena restarting on its log hands such a broker what the record says it
    held; a broker keeping its own book elsewhere (an exchange) needs nothing.
    """

    async def restore(self, balances: Mapping[str, Usd], trades_placed: int) -> None:
        """Set every account of ``balances``; number the next trade after ``trades_placed``."""
        ...
