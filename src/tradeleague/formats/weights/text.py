"""Model text is data (C-10, W-REC-3).

Reasons and summaries are shown as plain text: HTML-escaped, with invisible
characters (zero-width, bidi controls, every other Unicode format character)
removed. A strategy summary holding a web address or a wallet address is not
shown at all.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Final

__all__ = ["plain_text", "summary_shown"]

_WEB: Final = re.compile(r"(?i)\b(?:https?://|www\.)\S+|\b[a-z0-9-]+\.(?:com|org|net|io|xyz|app)\b")
_WALLET: Final = re.compile(r"\b0x[0-9a-fA-F]{40}\b|\b(?:bc1|[13])[a-km-zA-HJ-NP-Z1-9]{25,59}\b")


def plain_text(text: str) -> str:
    """Return ``text`` with invisible characters removed, then HTML-escaped (C-10)."""
    visible = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return html.escape(visible, quote=True)


def summary_shown(summary: str) -> str | None:
    """Return the summary as plain text, or ``None`` if it holds a web or wallet address."""
    cleaned = "".join(ch for ch in summary if unicodedata.category(ch) != "Cf")
    if _WEB.search(cleaned) or _WALLET.search(cleaned):
        return None
    return plain_text(cleaned)
