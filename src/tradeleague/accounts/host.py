"""What a server's owners' side needs from the service it sits on (`AccountHost`)."""

from __future__ import annotations

from typing import Protocol

from tradeleague.accounts.accounts import ApiAccounts
from tradeleague.accounts.keys import Tier
from tradeleague.accounts.ledger import Ledger
from tradeleague.clock import Clock
from tradeleague.store import Store

__all__ = ["AccountHost"]


class AccountHost(Protocol):
    """A service with accounts: its store, clock, transactions, API keys and quota usage.

    The scenario benchmark's `ScenarioService` is one; sign-in, sessions and
    owners' actions (``tradeleague.api.account``) take any.
    """

    @property
    def store(self) -> Store:
        """The event store."""
        ...

    @property
    def clock(self) -> Clock:
        """Where "now" comes from."""
        ...

    @property
    def ledger(self) -> Ledger:
        """The store, clock and transactions every part writes through."""
        ...

    @property
    def accounts(self) -> ApiAccounts:
        """The accounts and their API keys."""
        ...

    def usage(self, account: str, tier: Tier) -> dict[str, object]:
        """Return what ``account`` used of its quota this period, and the limit."""
        ...
