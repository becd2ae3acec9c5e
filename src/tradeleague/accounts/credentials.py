"""An API key as a request presented it, and the 401 that says how to fix a refused one.

A request may carry its key two ways, ``Authorization: Bearer <key>`` or
``X-API-Key: <key>``; the stdio MCP server takes it from
``TRADELEAGUE_API_KEY``. A refusal names where a key was seen and why it
failed (missing, malformed, unknown, revoked), and the forms that are
accepted, in one sentence: the REST API, the hosted MCP server and the stdio
one say the same words (S-SVC-4).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from tradeleague.accounts.keys import KEY_PREFIX
from tradeleague.errors import ServiceError

__all__ = [
    "BEARER",
    "ENV_KEY",
    "FORMS",
    "HEADER",
    "Credential",
    "credential_from_headers",
    "refusal",
]

HEADER: Final = "X-API-Key"
BEARER: Final = "Authorization: Bearer"
ENV_KEY: Final = "TRADELEAGUE_API_KEY"
FORMS: Final = "`Authorization: Bearer <key>` or `X-API-Key: <key>`"
"""The accepted forms, as every refusal names them."""

_KEY_SHAPE: Final = re.compile(r"[\x21-\x7E]{1,200}")


@dataclass(frozen=True, slots=True)
class Credential:
    """An API key and where it was seen.

    ``seen`` is `HEADER`, `BEARER`, `ENV_KEY`, ``"Authorization"`` (an
    Authorization header without the Bearer scheme: no key read from it) or
    ``None`` (nothing sent, or a key handed over without its origin).
    """

    key: str | None
    seen: str | None = None


def credential_from_headers(headers: Mapping[str, str]) -> Credential:
    """Return the key of a request's headers (names in any case): X-API-Key, else Bearer.

    Of a header sent twice the first counts; an empty X-API-Key is no key.
    """
    lower: dict[str, str] = {}
    for name, value in headers.items():
        lower.setdefault(name.lower(), value)
    header = lower.get("x-api-key")
    if header:
        return Credential(header.strip(), HEADER)
    auth = lower.get("authorization", "").strip()
    if auth[:7].lower() == "bearer ":
        return Credential(auth[7:].strip() or None, BEARER)
    if auth:
        return Credential(None, "Authorization")
    return Credential(None, None)


def refusal(credential: Credential, *, revoked: bool = False) -> ServiceError:
    """Return the 401 of a refused ``credential`` (its key not found, or ``revoked``).

    The error's extra fields say the same for programs: ``seen`` (where the key
    was read, or null) and ``reason`` (missing, malformed, unknown, revoked).
    """
    seen, key = credential.seen, credential.key
    fix_env = f"set {ENV_KEY} to your key" if seen == ENV_KEY else f"send your key as {FORMS}"
    if key is None:
        if seen == "Authorization":
            return _refused(
                "invalid_api_key",
                "malformed",
                seen,
                f"The Authorization header was sent without the Bearer scheme: {fix_env}.",
            )
        nothing = f"{ENV_KEY} is not set" if seen == ENV_KEY else "No API key was sent"
        return _refused("missing_api_key", "missing", seen, f"{nothing}: {fix_env}.")
    where = {HEADER: f"The key sent in {HEADER}", BEARER: f"The key sent in {BEARER}"}.get(
        seen or "", f"The key in {ENV_KEY}" if seen == ENV_KEY else "The API key"
    )
    if _KEY_SHAPE.fullmatch(key) is None or not key.startswith(KEY_PREFIX):
        why = (
            "an API key has no spaces, quotes or other characters outside printable ASCII"
            if _KEY_SHAPE.fullmatch(key) is None
            else f"an API key starts with {KEY_PREFIX}"
        )
        return _refused(
            "invalid_api_key",
            "malformed",
            seen,
            f"{where} is malformed ({why}): {fix_env}, exactly as it was shown.",
        )
    if revoked:
        return _refused(
            "invalid_api_key",
            "revoked",
            seen,
            f"{where} was revoked: create a new key on your account page "
            f"(or `tradeleague keys create`) and {fix_env}.",
        )
    return _refused(
        "invalid_api_key",
        "unknown",
        seen,
        f"{where} is not a known key: check it was copied whole, or create one on your "
        f"account page (or `tradeleague keys create`), and {fix_env}.",
    )


def _refused(code: str, reason: str, seen: str | None, message: str) -> ServiceError:
    return ServiceError(401, code, message, {"seen": seen, "reason": reason})
