"""Assemble the account side of a server: sign-in, sessions, API keys, the formats' desks."""

from __future__ import annotations

from collections.abc import Sequence

from tradeleague.accounts import AccountHost
from tradeleague.api.account.keys import WalletKeys
from tradeleague.api.account.plugin import OwnerDesk
from tradeleague.api.account.routes import Accounts
from tradeleague.api.account.sessions import Sessions
from tradeleague.api.account.settings import AccountSettings, Summarize
from tradeleague.api.account.signin import SignIn

__all__ = ["AccountSettings", "Summarize", "build_accounts"]


def build_accounts(
    service: AccountHost,
    settings: AccountSettings | None = None,
    desks: Sequence[OwnerDesk] = (),
) -> Accounts:
    """Return the `Accounts` a server mounts, from ``settings``, with the formats' ``desks``."""
    settings = settings or AccountSettings()
    return Accounts(
        signin=SignIn(service.ledger, domain=settings.siwe_domain, chain_id=settings.chain_id),
        sessions=Sessions(service.ledger, secret=settings.session_secret),
        keys=WalletKeys(service),
        desks=tuple(desks),
    )
