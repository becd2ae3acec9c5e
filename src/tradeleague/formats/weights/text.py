"""Model text is data (C-10, W-REC-3).

Reasons and summaries are shown as plain text: HTML-escaped, with invisible
characters (zero-width, bidi controls, every other Unicode format character)
removed. A strategy summary holding a web address or a wallet address is not
shown at all.

What counts as an address (ours; the detector errs toward hiding a summary,
never toward showing a link), looked for after NFKC normalisation (so
full-width letters and dots count) and with ``[.]``, ``(.)``, ``{.}`` and
ideographic full stops read as dots:

- web: any ``scheme://`` URL; anything starting ``www.``; ``host.tld/...`` for
  any alphabetic TLD of two or more letters (``t.me/x``, ``bit.ly/x``,
  ``example.museum/path``); a bare ``host.tld`` whose TLD is on a list of
  common and often-abused ones (``evil.ai``, ``example.co.uk``); an IPv4
  address with a port or a path;
- wallet: EVM (``0x`` + 40 hex digits), Bitcoin (bech32 ``bc1...``; base58
  ``1...`` / ``3...``), Solana (32 to 44 base58 characters) and Tron (``T`` +
  33 base58 characters).

Ordinary sentences are left alone: a TLD needs two letters and a bare host a
listed TLD, so "e.g.", "U.S.", "i.e.", "3.5%" or "BRK.B" are not addresses.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Final

__all__ = ["holds_address", "plain_text", "summary_shown"]

_KNOWN_TLDS: Final = (
    "com|org|net|edu|gov|mil|int|info|biz|name|pro|mobi|io|ai|app|dev|xyz|me|ly|co|uk|us|"
    "eu|de|fr|nl|ru|cn|jp|kr|in|br|au|ca|ch|se|es|pl|tk|ml|ga|cf|gq|cx|gg|to|sh|so|cc|tv|"
    "fm|gl|la|ws|vc|sc|su|pw|bz|ag|am|im|lt|lv|ee|ua|kz|ir|vn|id|ph|my|sg|hk|tw|nz|za|ng|"
    "site|online|top|club|shop|store|live|tech|page|link|click|blog|news|world|finance|"
    "money|capital|exchange|trade|trading|crypto|wallet|eth|sol|bet|vip|icu|lol|fun|space|"
    "website|cloud|host|digital|network|systems|global|group|today|email|chat|social|"
    "media|zone|one|win|work|tools|cash|fund|gold|market|markets|invest|investments"
)
_LABEL: Final = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_WEB: Final = re.compile(
    r"(?i)"
    r"\b[a-z][a-z0-9+.-]{1,31}://\S+"  # any scheme URL
    r"|\bwww\.\S+"  # www.anything
    rf"|\b(?:{_LABEL}\.)+[a-z]{{2,63}}/"  # host.tld/path, any alphabetic TLD
    rf"|\b(?:{_LABEL}\.)+(?:{_KNOWN_TLDS})\b"  # host.tld, a listed TLD
    r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5}|/)"  # IPv4 with a port or a path
)
_B58: Final = "1-9A-HJ-NP-Za-km-z"
_WALLET: Final = re.compile(
    r"\b0x[0-9a-fA-F]{40}\b"  # EVM
    r"|\b(?:bc|tb|BC|TB)1[02-9ac-hj-np-zAC-HJ-NP-Z]{11,87}\b"  # Bitcoin bech32/bech32m
    rf"|\b[13][{_B58}]{{25,34}}\b"  # Bitcoin base58 (P2PKH, P2SH)
    rf"|\bT[{_B58}]{{33}}\b"  # Tron
    rf"|\b[{_B58}]{{32,44}}\b"  # Solana
)
_DOTS: Final = re.compile(r"\[\.\]|\(\.\)|\{\.\}|[\u3002\uff61]")


def _visible(text: str) -> str:
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def plain_text(text: str) -> str:
    """Return ``text`` with invisible characters removed, then HTML-escaped (C-10)."""
    return html.escape(_visible(text), quote=True)


def holds_address(text: str) -> bool:
    """Return whether ``text`` holds a web or a wallet address (C-10, W-REC-3).

    Examples
    --------
    >>> holds_address("Buys U.S. tech, e.g. AAPL, on 3.5% dips.")
    False
    >>> holds_address("Join t.me/pumps")
    True
    """
    folded = _DOTS.sub(".", unicodedata.normalize("NFKC", _visible(text)))
    return bool(_WEB.search(folded) or _WALLET.search(folded))


def summary_shown(summary: str) -> str | None:
    """Return the summary as plain text, or ``None`` if it holds a web or wallet address."""
    if holds_address(summary):
        return None
    return plain_text(summary)
