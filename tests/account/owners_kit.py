"""Helpers of the owners' tests: a season, a site on a real server, a wallet that signs in."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount

from tradeleague.api.account.setup import AccountSettings
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.weights import ops
from tradeleague.site import create_site
from tradeleague.store import Store
from tradeleague.testing.server import serve_asgi

SEASON_START = datetime(2026, 10, 5, tzinfo=UTC)
"""A Monday: the season runs 28 days from it."""
NOW = datetime(2026, 10, 6, 9, tzinfo=UTC)


def new_season(store: Store, clock: ReplayClock) -> str:
    """Start a two-symbol season that is running at ``NOW``."""
    return ops.create_season(
        store,
        clock,
        start=SEASON_START,
        symbols=["SPY", "QQQ"],
        decimals={"SPY": 8, "QQQ": 8},
        source="fixture",
    )


def siwe_text(
    wallet: LocalAccount,
    *,
    domain: str,
    nonce: str,
    chain_id: int = 1,
    issued: datetime = NOW,
    expires: datetime | None = None,
    uri: str | None = None,
) -> str:
    """Return an EIP-4361 message, written out as a wallet shows it (its URI on ``domain``)."""
    lines = [
        f"{domain} wants you to sign in with your Ethereum account:",
        wallet.address,
        "",
        "Sign in to tradeleague.",
        "",
        f"URI: {uri or f'http://{domain}/account'}",
        "Version: 1",
        f"Chain ID: {chain_id}",
        f"Nonce: {nonce}",
        f"Issued At: {issued.isoformat().replace('+00:00', 'Z')}",
    ]
    if expires is not None:
        lines.append(f"Expiration Time: {expires.isoformat().replace('+00:00', 'Z')}")
    return "\n".join(lines)


def sign(wallet: LocalAccount, text: str) -> str:
    """Return the wallet's personal_sign signature of ``text`` (0x hex)."""
    signature = wallet.sign_message(encode_defunct(text=text)).signature.hex()
    return signature if signature.startswith("0x") else "0x" + signature


@dataclass
class Owner:
    """A wallet with an HTTP client that keeps its cookies."""

    wallet: LocalAccount
    http: httpx.Client
    csrf: str = ""

    def login(self, clock: ReplayClock, **message: Any) -> httpx.Response:
        """Sign in through the real flow: nonce, sign, login."""
        challenge = self.http.get("/api/v1/account/nonce").json()
        fields = {"domain": challenge["domain"], "nonce": challenge["nonce"], "issued": clock.now()}
        fields.update(message)
        text = siwe_text(self.wallet, **fields)
        answer = self.http.post(
            "/api/v1/account/login", json={"message": text, "signature": sign(self.wallet, text)}
        )
        if answer.status_code == 200:
            self.csrf = answer.json()["csrf_token"]
        return answer

    def write(self, method: str, path: str, body: object = None) -> httpx.Response:
        """Send a cookie-authenticated write with the CSRF header."""
        return self.http.request(method, path, json=body, headers={"X-CSRF-Token": self.csrf})


@contextmanager
def site(
    service: ScenarioService, clock: ReplayClock, settings: AccountSettings | None = None
) -> Iterator[str]:
    """Serve the whole site over real HTTP; yield its base URL."""
    with serve_asgi(create_site(service, clock=clock, accounts=settings)) as base:
        yield base


@contextmanager
def owner(base: str) -> Iterator[Owner]:
    """Yield a fresh wallet with its own cookie jar."""
    with httpx.Client(base_url=base, timeout=30) as http:
        yield Owner(Account.create(), http)


def later(clock: ReplayClock, minutes: int) -> None:
    """Move the clock on."""
    clock.advance(timedelta(minutes=minutes))
