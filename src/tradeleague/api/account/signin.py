"""Sign-in with Ethereum (EIP-4361): a nonce per attempt, then one signed message.

`SignIn.nonce` stores a fresh random nonce with the domain and chain id the
message must name and when it expires; `SignIn.login` parses the message
(through the ``siwe`` package), checks its domain, that its ``URI:`` is on that
domain, its chain id, nonce and times
against the stored nonce and the clock, recovers the signer, and spends the
nonce, so a replayed message is refused. Every refusal is a 401 with a reason
code, never a crash: the message and signature come from outside.
"""

from __future__ import annotations

import re
import secrets
import warnings
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

import sqlalchemy as sa

from tradeleague.accounts import Ledger
from tradeleague.api.account.tables import account_nonces
from tradeleague.errors import ServiceError

if TYPE_CHECKING:
    from siwe import SiweMessage

__all__ = [
    "ADDRESS_PATTERN",
    "MAX_MESSAGE_CHARS",
    "NONCE_TTL",
    "Challenge",
    "SignIn",
    "message_for",
]

ADDRESS_PATTERN: Final = r"^0x[0-9a-fA-F]{40}$"
"""An Ethereum address as a wallet gives it (any case)."""

NONCE_TTL: Final = timedelta(minutes=10)
"""How long a nonce may be signed and sent back."""

MAX_MESSAGE_CHARS: Final = 4_000
"""The longest sign-in message read (an EIP-4361 message is a few hundred characters)."""

_SIGNATURE_CHARS: Final = 200


@dataclass(frozen=True, slots=True)
class Challenge:
    """What a sign-in attempt must sign: a nonce, for a domain, on a chain."""

    nonce: str
    domain: str
    chain_id: int
    expires_at: datetime


def message_for(challenge: Challenge, address: str, uri: str, issued_at: datetime) -> str:
    """Return the EIP-4361 message a wallet at ``address`` signs for ``challenge``.

    Raises
    ------
    ServiceError
        422 ``invalid_address`` when ``address`` is not an Ethereum address.
    """
    from eth_utils.address import is_address, to_checksum_address

    if not is_address(address):
        raise ServiceError(422, "invalid_address", "That is not an Ethereum address.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from siwe import SiweMessage

    return str(
        SiweMessage(
            domain=challenge.domain,
            address=to_checksum_address(address),
            statement="Sign in to tradeleague. This sends no transaction and costs nothing.",
            uri=uri,
            version="1",
            chain_id=challenge.chain_id,
            nonce=challenge.nonce,
            issued_at=_stamp(issued_at),
            expiration_time=_stamp(challenge.expires_at),
        ).prepare_message()
    )


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _refused(code: str, message: str) -> ServiceError:
    return ServiceError(401, code, message)


class SignIn:
    """Issue nonces and verify signed EIP-4361 messages on the service's store.

    Parameters
    ----------
    service
        The store, clock and transactions (the service's `Ledger`).
    domain
        The domain messages must name; ``None`` takes each request's host.
    chain_id
        The chain id messages must name (1, Ethereum mainnet, by default).
    """

    def __init__(self, service: Ledger, *, domain: str | None, chain_id: int = 1) -> None:
        self._service = service
        self.domain = domain
        self.chain_id = chain_id

    def nonce(self, host: str) -> Challenge:
        """Store and return a new nonce for a sign-in from ``host`` (the request's host)."""
        domain = (self.domain or host).strip().lower()[:255]
        nonce = secrets.token_hex(12)
        now = self._service.clock.now()
        challenge = Challenge(nonce, domain, self.chain_id, now + NONCE_TTL)
        with self._service.write("issue a sign-in nonce in") as conn:
            conn.execute(sa.delete(account_nonces).where(account_nonces.c.expires_at < now))
            conn.execute(
                sa.insert(account_nonces).values(
                    nonce=nonce,
                    domain=domain,
                    chain_id=self.chain_id,
                    created_at=now,
                    expires_at=challenge.expires_at,
                )
            )
        return challenge

    def login(self, message: str, signature: str) -> str:
        """Verify a signed sign-in message and return the signer's checksummed address.

        Raises
        ------
        ServiceError
            401 ``invalid_message`` (unreadable), ``unknown_nonce`` (never
            issued, already used or expired), ``wrong_domain``,
            ``wrong_uri`` (its URI is not on the domain), ``wrong_chain``,
            ``message_expired``/``message_not_yet_valid`` or
            ``invalid_signature``.
        """
        if len(message) > MAX_MESSAGE_CHARS or len(signature) > _SIGNATURE_CHARS:
            raise _refused("invalid_message", "The sign-in message or signature is too long.")
        # A form's textarea sends CRLF line ends; the signed message has LF (EIP-4361).
        parsed = _parse(message.replace("\r\n", "\n"))
        now = self._service.clock.now()
        with self._service.write("sign in to") as conn:
            row = conn.execute(
                sa.select(account_nonces).where(account_nonces.c.nonce == str(parsed.nonce))
            ).one_or_none()
            if row is None or row.used_at is not None or row.expires_at <= now:
                raise _refused(
                    "unknown_nonce", "The sign-in nonce is unknown, used or expired; ask a new one."
                )
            if str(parsed.domain).lower() != row.domain:
                raise _refused("wrong_domain", f"The message must be for {row.domain}.")
            if not _on_domain(str(parsed.uri), str(row.domain)):
                raise _refused("wrong_uri", f"The message's URI must be on {row.domain}.")
            if int(parsed.chain_id) != int(row.chain_id):
                raise _refused("wrong_chain", f"The message must name chain id {row.chain_id}.")
            _check_times(parsed, now)
            _check_signature(parsed, signature, str(row.nonce), now)
            conn.execute(
                sa.update(account_nonces)
                .where(account_nonces.c.nonce == row.nonce, account_nonces.c.used_at.is_(None))
                .values(used_at=now)
            )
        return str(parsed.address)


_STAMP: Final = r"[0-9][0-9:.TZtz+\-]{9,39}"
_SHAPE: Final = re.compile(
    r"(?:[a-z][a-z0-9+.\-]{0,19}://)?[^\s/]{1,255} wants you to sign in with your Ethereum "
    r"account:\n0x[0-9a-fA-F]{40}\n\n(?:[^\n]{1,500}\n)?\n"
    r"URI: \S{1,500}\nVersion: 1\nChain ID: [0-9]{1,20}\nNonce: [A-Za-z0-9]{8,64}\n"
    rf"Issued At: {_STAMP}(?:\nExpiration Time: {_STAMP})?(?:\nNot Before: {_STAMP})?"
    r"(?:\nRequest ID: [^\n]{0,200})?(?:\nResources:(?:\n- \S{1,500}){0,20})?"
)
"""The lines of an EIP-4361 message, each bounded, checked before its grammar parses it.

The grammar's parser takes seconds on a few thousand characters that are not a
message (four on 4,000 digits, in the worker thread, holding the interpreter);
this pattern is linear and refuses them first."""


def _parse(message: str) -> SiweMessage:
    if not _SHAPE.fullmatch(message):
        raise _refused("invalid_message", "The sign-in message is not an EIP-4361 message.")
    with warnings.catch_warnings():  # its grammar library may warn as it loads
        warnings.simplefilter("ignore")
        from siwe import SiweMessage

    try:
        return SiweMessage.from_message(message)
    except Exception:  # the grammar and pydantic raise many kinds; all mean "unreadable"
        raise _refused(
            "invalid_message", "The sign-in message is not an EIP-4361 message."
        ) from None


def _on_domain(uri: str, domain: str) -> bool:
    """Return whether ``uri`` is an http(s) address on ``domain`` (a host, maybe with a port)."""
    try:
        parts, wanted = urlsplit(uri), urlsplit(f"//{domain}")
        port, wanted_port = parts.port, wanted.port
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and parts.hostname is not None
        and parts.hostname == wanted.hostname
        and (wanted_port is None or port == wanted_port)
    )


def _instant(text: object) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise _refused("invalid_message", "A time in the sign-in message is malformed.") from None
    return moment if moment.tzinfo is not None else None


def _check_times(parsed: SiweMessage, now: datetime) -> None:
    expires = _instant(parsed.expiration_time)
    if expires is not None and expires <= now:
        raise _refused("message_expired", "The sign-in message has expired; sign a new one.")
    not_before = _instant(parsed.not_before)
    if not_before is not None and not_before > now:
        raise _refused("message_not_yet_valid", "The sign-in message is not valid yet.")


def _check_signature(parsed: SiweMessage, signature: str, nonce: str, now: datetime) -> None:
    try:
        parsed.verify(signature, domain=parsed.domain, nonce=nonce, timestamp=now)
    except Exception:  # siwe raises one class per failure; every one is a refusal
        raise _refused(
            "invalid_signature", "The signature does not match the message's address."
        ) from None
