"""The server's session secret: what signs session cookies and anonymous forms' CSRF tokens.

Servers sharing a store share it (``$TRADELEAGUE_SESSION_SECRET``); unset, each
process draws its own, so sessions end when it restarts. The accounts' sessions
(``api.account.sessions``) and the site's anonymous forms (``web.form_csrf``)
both read it here.
"""

from __future__ import annotations

import os
import secrets
from typing import Final

__all__ = ["SESSION_SECRET_ENV", "session_secret"]

SESSION_SECRET_ENV: Final = "TRADELEAGUE_SESSION_SECRET"  # noqa: S105 (a variable name)
"""The environment variable holding the session secret."""


def session_secret(given: str | None = None) -> str:
    """Return ``given``, else ``$TRADELEAGUE_SESSION_SECRET``, else a random secret."""
    return given or os.environ.get(SESSION_SECRET_ENV, "").strip() or secrets.token_hex(32)
