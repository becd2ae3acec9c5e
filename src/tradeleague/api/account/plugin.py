"""What an owner's account needs of a format: the `AccountPart` protocol and its `OwnerDesk`.

An account is the same for every format: sign-in with a wallet, a session, the
wallet's scenario API keys. A format that lets an owner enter something (the
weights league: one agent) names an ``account`` part implementing
`AccountPart`; the site opens one `OwnerDesk` on it, which adds the format's
facts to the account (``GET /api/v1/account`` and the page), its routes under
``/api/v1/account``, and its forms and section on ``/account``. The accounts
never import a format's package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from fastapi import APIRouter, BackgroundTasks

from tradeleague.accounts import AccountHost
from tradeleague.api.account.settings import AccountSettings

__all__ = ["AccountPart", "OwnerDesk", "PageAction"]

PageAction = Callable[[str, Mapping[str, str], BackgroundTasks], str | None]
"""A form the account page posts: (the signed-in wallet, the form's fields, the answer's
background tasks) -> the notice the page shows. Raises ``ServiceError`` to refuse."""


class OwnerDesk(Protocol):
    """One format's side of the owners' accounts on one server.

    Attributes
    ----------
    facts
        The template of the format's lines in the account's facts (``<dt>``
        and ``<dd>``, beside the wallet); it reads ``acct``, the account.
    section
        The template of the format's section of the account page; it reads
        ``acct`` and ``csrf`` (the token each form posts back).
    """

    facts: str
    section: str

    def view(self, wallet: str) -> dict[str, Any]:
        """Return the fields the format adds to ``wallet``'s account, in the order shown."""
        ...

    def router(self) -> APIRouter:
        """Return the format's routes under ``/api/v1/account`` (``routes`` has their kit)."""
        ...

    def actions(self) -> Mapping[str, PageAction]:
        """Return the account page's forms the format answers, by path (``/account/...``)."""
        ...


class AccountPart(Protocol):
    """What a format adds to owners' accounts (its ``account`` part)."""

    def open(self, service: AccountHost, settings: AccountSettings) -> OwnerDesk:
        """Return the format's desk on ``service`` with the server's account settings."""
        ...
