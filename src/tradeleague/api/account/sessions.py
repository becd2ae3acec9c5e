"""Server-side sessions in a signed cookie, and the double-submit CSRF token.

A session is a random id; the cookie holds the id and an HMAC of it under the
server's session secret, and the store holds only the id's SHA-256 with the
wallet and the expiry, so signing out (or expiry) ends it on every server.
Every cookie-authenticated write must echo the CSRF token: the ``tl_csrf``
cookie (readable by the page) and a hidden ``csrf_token`` form field or an
``X-CSRF-Token`` header must both equal the token derived from the session id,
so a token planted by another site cannot match.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

import sqlalchemy as sa

from tradeleague.accounts import Ledger
from tradeleague.api.account.tables import account_sessions
from tradeleague.errors import ServiceError
from tradeleague.keys.session import SESSION_SECRET_ENV, session_secret

__all__ = [
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "SESSION_COOKIE",
    "SESSION_SECRET_ENV",
    "SESSION_TTL",
    "Session",
    "Sessions",
]

SESSION_COOKIE: Final = "tl_session"
CSRF_COOKIE: Final = "tl_csrf"
CSRF_HEADER: Final = "X-CSRF-Token"
SESSION_TTL: Final = timedelta(days=7)

_MAX_COOKIE_CHARS: Final = 200


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in wallet and the CSRF token its writes must carry."""

    wallet: str
    csrf: str
    id_hash: str


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()


class Sessions:
    """Open, read and end sessions on the service's store.

    Parameters
    ----------
    service
        The store, clock and transactions.
    secret
        The signing secret (default: ``$TRADELEAGUE_SESSION_SECRET``, else random).
    """

    def __init__(self, service: Ledger, *, secret: str | None = None) -> None:
        self._service = service
        self._secret = session_secret(secret).encode("utf-8")

    def _mac(self, label: str, value: str) -> str:
        raw = hmac.new(self._secret, f"{label}:{value}".encode("ascii"), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")

    def open(self, wallet: str) -> tuple[str, str]:
        """Start a session for ``wallet``; return the cookie value and the CSRF token."""
        sid = secrets.token_urlsafe(32)
        now = self._service.clock.now()
        with self._service.write("open a session in") as conn:
            conn.execute(
                sa.insert(account_sessions).values(
                    id_hash=_digest(sid),
                    wallet=wallet,
                    created_at=now,
                    expires_at=now + SESSION_TTL,
                )
            )
        return f"{sid}.{self._mac('session', sid)}", self._mac("csrf", sid)

    def read(self, cookie: str | None, *, ended: bool = False) -> Session | None:
        """Return the live session a cookie names, or ``None`` (absent, forged, ended, expired).

        ``ended``: an ended or expired session is returned too (a sign-out's
        retry is answered with its first answer, the session it ended).
        """
        if not cookie or len(cookie) > _MAX_COOKIE_CHARS or "." not in cookie:
            return None
        sid, mac = cookie.rsplit(".", 1)
        if not sid.isascii() or not hmac.compare_digest(mac, self._mac("session", sid)):
            return None
        now = self._service.clock.now()
        with self._service.read("read a session from") as conn:
            row = conn.execute(
                sa.select(account_sessions).where(account_sessions.c.id_hash == _digest(sid))
            ).one_or_none()
        if row is None or (not ended and (row.ended_at is not None or row.expires_at <= now)):
            return None
        return Session(str(row.wallet), self._mac("csrf", sid), _digest(sid))

    def require(self, cookie: str | None) -> Session:
        """Return the cookie's session.

        Raises
        ------
        ServiceError
            401 ``not_signed_in``.
        """
        found = self.read(cookie)
        if found is None:
            raise ServiceError(401, "not_signed_in", "Sign in with your wallet first.")
        return found

    @staticmethod
    def check_csrf(session: Session, cookie: str | None, sent: str | None) -> None:
        """Check a write's double-submitted CSRF token.

        Raises
        ------
        ServiceError
            403 ``csrf_failed`` when the cookie or the sent token is missing or
            either differs from the session's.
        """
        good = (
            cookie is not None
            and sent is not None
            and hmac.compare_digest(cookie.encode(), session.csrf.encode())
            and hmac.compare_digest(sent.encode(), session.csrf.encode())
        )
        if not good:
            raise ServiceError(
                403, "csrf_failed", "The request lacks this session's CSRF token; reload the page."
            )

    def end(self, session: Session) -> None:
        """End ``session`` everywhere.

        Raises
        ------
        ServiceError
            401 ``not_signed_in`` if it had already ended.
        """
        now = self._service.clock.now()
        with self._service.write("end a session in") as conn:
            ended = conn.execute(
                sa.update(account_sessions)
                .where(
                    account_sessions.c.id_hash == session.id_hash,
                    account_sessions.c.ended_at.is_(None),
                )
                .values(ended_at=now)
            )
            if ended.rowcount != 1:
                raise ServiceError(401, "not_signed_in", "Sign in with your wallet first.")
