"""Request and response bodies of the account routes; requests bounded before anything reads them.

A format's desk declares its own bodies the same way (`closed`).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from tradeleague.api.account.signin import MAX_MESSAGE_CHARS
from tradeleague.league.bodies import ReadOut, read_config

__all__ = [
    "AccountOut",
    "KeyIssuedOut",
    "KeyOut",
    "KeyRevokedOut",
    "KeysOut",
    "LoginIn",
    "NonceOut",
    "SignedInOut",
    "SignedOutOut",
    "UsageOut",
    "closed",
]


def closed(example: dict[str, Any]) -> ConfigDict:
    """Return a request body's config: no field beyond its own, ``example`` shown in /docs."""
    return ConfigDict(extra="forbid", json_schema_extra={"examples": [example]})


class LoginIn(BaseModel):
    """A signed EIP-4361 message."""

    model_config = closed(
        {
            "message": "example.org wants you to sign in with your Ethereum account:\n…",
            "signature": "0x5f1e…1b",
        }
    )
    message: Annotated[
        str,
        Field(
            max_length=MAX_MESSAGE_CHARS,
            description="The EIP-4361 message (from GET /api/v1/account/nonce?address=).",
        ),
    ]
    signature: Annotated[
        str, Field(max_length=200, description="The wallet's personal_sign of it, 0x hex.")
    ]


# -- answers ----------------------------------------------------------------------------

_KEY_ROW: dict[str, Any] = {
    "id": "3f9a0c1b2d4e",
    "prefix": "tl_AbC",
    "created_at": "2026-03-01T12:00:00.000000Z",
    "revoked_at": None,
}
_USAGE: dict[str, Any] = {
    "tier": "free",
    "runs": 3,
    "limit": 25,
    "resets_at": "2026-04-01T00:00:00.000000Z",
}


class KeyOut(BaseModel):
    """One API key as listed: an id and a prefix, never the key itself."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="The key's id: what DELETE /api/v1/account/keys/{key_id} takes.")
    prefix: str = Field(description="The key's first characters, to tell keys apart.")
    created_at: str = Field(description="When it was issued (ISO 8601, UTC).")
    revoked_at: str | None = Field(description="When it was revoked (UTC), or null.")


class UsageOut(BaseModel):
    """What the account used of this UTC month's runs."""

    model_config = ConfigDict(extra="forbid")

    tier: str = Field(description="free or pro.")
    runs: int = Field(description="Scenario runs started this UTC calendar month.")
    limit: int = Field(description="Runs allowed per UTC calendar month for the tier.")
    resets_at: str = Field(description="When the count starts again (ISO 8601, UTC).")


class NonceOut(ReadOut):
    """A one-time nonce to sign in with, the domain and chain to sign for."""

    model_config = read_config(
        {"nonce": "k1x9Qw2LmP0aZr7T", "domain": "example.org", "chain_id": 1}
    )

    nonce: str = Field(description="Put it in the EIP-4361 message; it is good for one sign-in.")
    domain: str = Field(description="The domain the message must name.")
    chain_id: int = Field(description="The chain id the message must name.")
    message: str | None = Field(
        default=None, description="With ?address=: the whole message to sign, ready to sign."
    )


class SignedInOut(ReadOut):
    """Signed in: the session cookie is set; send csrf_token with every write."""

    model_config = read_config(
        {"wallet": "0x52908400098527886E0F7030069857D2E4169EE7", "csrf_token": "q8Z0…"}
    )

    wallet: str = Field(description="The signed-in wallet's address (checksummed).")
    csrf_token: str = Field(description="Send it as the X-CSRF-Token header on every write.")


class SignedOutOut(ReadOut):
    """Signed out: the session is ended and its cookies cleared."""

    model_config = read_config({"signed_out": True})

    signed_out: bool = Field(description="Always true.")


class AccountOut(ReadOut):
    """The signed-in account: its wallet, API keys and usage, and each format's own fields."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "wallet": "0x52908400098527886E0F7030069857D2E4169EE7",
                    "season": "2026-w1",
                    "agent": None,
                    "api_keys": [_KEY_ROW],
                    "usage": _USAGE,
                    "disclaimer": "Paper trading simulation. Not investment advice.",
                }
            ]
        },
    )

    wallet: str = Field(description="The signed-in wallet's address.")
    api_keys: list[KeyOut] = Field(description="Its scenario API keys, oldest first.")
    usage: UsageOut


class KeysOut(ReadOut):
    """The wallet's scenario API keys (never the keys themselves) and its usage."""

    model_config = read_config({"keys": [_KEY_ROW], "usage": _USAGE})

    keys: list[KeyOut] = Field(description="Its keys, oldest first, revoked ones included.")
    usage: UsageOut


class NewKeyOut(KeyOut):
    """A new key; ``key`` is shown in this answer only: keep it."""

    key: str = Field(description="The API key. Send it as Authorization: Bearer <key>.")


class KeyIssuedOut(ReadOut):
    """The key just issued, shown this once."""

    model_config = read_config({"key": {**_KEY_ROW, "key": "tl_AbC…"}})

    key: NewKeyOut


class RevokedOut(BaseModel):
    """A revoked key's id and when it was revoked."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="The key's id.")
    revoked_at: str = Field(description="When it was revoked (ISO 8601, UTC).")


class KeyRevokedOut(ReadOut):
    """The key is revoked: every server refuses it within a second."""

    model_config = read_config(
        {"key": {"id": "3f9a0c1b2d4e", "revoked_at": "2026-03-02T08:00:00.000000Z"}}
    )

    key: RevokedOut
