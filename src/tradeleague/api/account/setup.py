"""Assemble the account side of a server: sign-in, sessions, owners, summaries."""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from tradeleague.accounts import AccountHost
from tradeleague.api.account.owners import OwnerConfig, Owners, Summarize
from tradeleague.api.account.routes import Accounts
from tradeleague.api.account.sessions import Sessions
from tradeleague.api.account.signin import SignIn
from tradeleague.formats.weights import WeightsPreset
from tradeleague.keys import KeyVault, MasterKeyError
from tradeleague.keys.stored import OwnerKeys
from tradeleague.league.weights import ops
from tradeleague.league.weights.summary import summarize_strategy
from tradeleague.llm.gateway import Gateway

__all__ = ["AccountSettings", "build_accounts", "house_summarizer", "summarizer"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AccountSettings:
    """What ``tradeleague serve`` decides for sign-in and owners.

    Attributes
    ----------
    siwe_domain
        The domain sign-in messages must name; ``None`` takes the request's host.
    chain_id
        The chain id sign-in messages must name.
    owners
        The season owners join, its rules and the model endpoints allowed.
    vault
        Seals owners' model keys; ``None`` reads the master keys from the
        environment (and stores no keys when none is set).
    summarize
        Writes strategy summaries (W-REC-3); ``None`` writes none.
    session_secret
        Signs session cookies (default ``$TRADELEAGUE_SESSION_SECRET``).
    """

    siwe_domain: str | None = None
    chain_id: int = 1
    owners: OwnerConfig = field(default_factory=OwnerConfig)
    vault: KeyVault | None = None
    summarize: Summarize | None = None
    session_secret: str | None = None


def build_accounts(service: AccountHost, settings: AccountSettings | None = None) -> Accounts:
    """Return the `Accounts` a server mounts on ``service``, from ``settings``."""
    settings = settings or AccountSettings()
    vault = settings.vault
    if vault is None:
        try:
            vault = KeyVault.from_env()
        except MasterKeyError:
            vault = None
    return Accounts(
        signin=SignIn(service.ledger, domain=settings.siwe_domain, chain_id=settings.chain_id),
        sessions=Sessions(service.ledger, secret=settings.session_secret),
        owners=Owners(
            service, OwnerKeys(service.store, vault), settings.owners, settings.summarize
        ),
    )


def summarizer(
    service: AccountHost,
    gateway: Callable[[], Gateway],
    *,
    provider: str,
    model: str,
    preset: WeightsPreset | None = None,
) -> Summarize:
    """Return a `Summarize` that asks ``model`` through a gateway (W-REC-3, C-5).

    ``gateway`` makes a gateway for one summary, closed when it is written (the
    summary runs on the server's event loop, after the owner's answer). A
    failed summary is logged and leaves the agent as it is: the prompt change
    it follows has already been recorded.
    """

    async def write(season: str, agent: str) -> None:
        made = gateway()
        try:
            state = ops.load_season(service.store, season, preset)
            await summarize_strategy(
                service.store, service.clock, state, agent, made, provider=provider, model=model
            )
        except Exception as exc:  # a summary is best effort; the owner's action stands
            _log.warning("no strategy summary for agent %s: %s", agent, type(exc).__name__)
        finally:
            await made.aclose()

    return write


def house_summarizer(service: AccountHost, preset: WeightsPreset | None = None) -> Summarize | None:
    """Return a `Summarize` on the house model, or ``None`` where it cannot run here."""
    from tradeleague.llm.local import LocalProvider, bundled_model_path

    if importlib.util.find_spec("llama_cpp") is None or bundled_model_path() is None:
        return None

    def gateway() -> Gateway:
        return Gateway([LocalProvider()])

    return summarizer(service, gateway, provider="local", model="house", preset=preset)
