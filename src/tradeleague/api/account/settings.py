"""What ``tradeleague serve`` decides for sign-in and owners (`AccountSettings`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from tradeleague.keys import KeyVault

__all__ = ["AccountSettings", "Summarize"]

Summarize = Callable[[str, str], Awaitable[None]]
"""Write the strategy summary of (season, agent) from its prompt in force (W-REC-3)."""


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
        What a format's owner desk reads (the weights league: its
        ``OwnerConfig``, the season owners join, its rules and the model
        endpoints allowed); ``None`` for its defaults.
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
    owners: object | None = None
    vault: KeyVault | None = None
    summarize: Summarize | None = None
    session_secret: str | None = None
