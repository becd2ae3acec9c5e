"""A CSRF token for forms anyone may post: a signed double-submit cookie.

The account pages bind their token to the session; a visitor's call has no
session, so its form carries a token of its own: a random nonce and the HMAC
of it under the server's session secret (``$TRADELEAGUE_SESSION_SECRET``,
shared by every server of a store; unset, each process draws its own). The
page sets it in an HttpOnly, ``SameSite=Strict`` cookie and writes it into
the form's hidden ``csrf_token``; a post must send both, equal, with a valid
signature, so another site can neither read the token nor plant one it made
up. A post whose ``Origin`` names another host, or that the browser marks
``Sec-Fetch-Site: cross-site``, is refused before the token is looked at.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Final
from urllib.parse import urlsplit

from fastapi import Request, Response

from tradeleague.keys.session import session_secret

__all__ = ["FORM_CSRF_COOKIE", "FormTokens", "same_site"]

FORM_CSRF_COOKIE: Final = "tl_form_csrf"
_MAX_TOKEN_CHARS: Final = 200
_AGE_S: Final = 7 * 24 * 3600


def same_site(request: Request) -> bool:
    """Tell whether a post may come from this site's own page (by ``Origin``, ``Sec-Fetch-Site``).

    A browser that sends neither header says nothing either way: the token decides.
    """
    if request.headers.get("sec-fetch-site", "").lower() == "cross-site":
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    host = request.headers.get("host", "")[:300].lower()
    return origin != "null" and urlsplit(origin[:300]).netloc.lower() == host


class FormTokens:
    """Issue and check anonymous forms' CSRF tokens.

    Parameters
    ----------
    secret
        The signing secret (default: ``$TRADELEAGUE_SESSION_SECRET``, else random).
    """

    def __init__(self, secret: str | None = None) -> None:
        self._secret = session_secret(secret).encode("utf-8")

    def _mac(self, nonce: str) -> str:
        raw = hmac.new(self._secret, f"form:{nonce}".encode("ascii"), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")

    def issue(self) -> str:
        """Return a new token: ``nonce.signature``."""
        nonce = secrets.token_urlsafe(18)
        return f"{nonce}.{self._mac(nonce)}"

    def valid(self, token: str | None) -> bool:
        """Tell whether ``token`` is one this server (or one sharing its secret) issued."""
        if not token or len(token) > _MAX_TOKEN_CHARS or not token.isascii() or "." not in token:
            return False
        nonce, mac = token.rsplit(".", 1)
        return hmac.compare_digest(mac.encode(), self._mac(nonce).encode())

    def for_page(self, request: Request) -> str:
        """Return the token a page's form carries: the request's own, if valid, else a new one."""
        held = request.cookies.get(FORM_CSRF_COOKIE)
        return held if held is not None and self.valid(held) else self.issue()

    @staticmethod
    def set_cookie(response: Response, request: Request, token: str) -> None:
        """Set the token's cookie (HttpOnly, ``SameSite=Strict``, Secure over HTTPS)."""
        response.set_cookie(
            FORM_CSRF_COOKIE,
            token,
            max_age=_AGE_S,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )

    def check(self, request: Request, sent: str | None) -> bool:
        """Tell whether a post carries this site's token twice (cookie, form), equal and signed."""
        cookie = request.cookies.get(FORM_CSRF_COOKIE)
        return (
            same_site(request)
            and cookie is not None
            and sent is not None
            and self.valid(cookie)
            and hmac.compare_digest(cookie.encode(), sent.encode())
        )
