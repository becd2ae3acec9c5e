"""Reading what comes from outside: JSON with bounds, text that can always be stored.

Everything an agent, a provider, a script file or an HTTP client sends is
hostile until read here (DESIGN principle 7). Two promises:

- **JSON cannot crash the reader.** Python's decoder recurses once per level
  of nesting; a document nested tens of thousands deep exhausts the C stack
  and kills the process when the interpreter's recursion limit has been raised
  (some libraries raise it on import). ``loads`` and ``raw_decode`` first scan
  the text without recursion (strings skipped exactly as the decoder skips
  them) and refuse anything nested deeper than ``max_depth`` or longer than
  ``max_chars`` before the decoder sees it. Every refusal is an
  `UntrustedJSON` (a ``ValueError``) whose ``code`` says why.
- **Text can always be encoded.** ``clean_text`` replaces lone surrogates
  (which UTF-8 cannot hold, so no event, file or page could store them) with
  U+FFFD; ``clean_value`` does the same through a decoded JSON value, keys
  included; ``is_blank`` counts a text of white space and invisible format
  characters (zero-width spaces, bidi controls) as empty; ``bounded_int``
  clamps a count from outside into a range any column and ``timedelta`` hold.

Pure: no clock, no I/O, no global state.
"""

from __future__ import annotations

import enum
import json
import re
import unicodedata
from typing import Any, Final

__all__ = [
    "MAX_CHARS",
    "MAX_DEPTH",
    "REPLACEMENT",
    "JSONProblem",
    "UntrustedJSON",
    "bounded_int",
    "clean_text",
    "clean_value",
    "has_lone_surrogate",
    "is_blank",
    "loads",
    "nesting_within",
    "raw_decode",
]

MAX_DEPTH: Final = 64
"""The deepest nesting of arrays and objects accepted from outside."""

MAX_CHARS: Final = 4_000_000
"""The longest JSON text accepted from outside by default, in characters."""

REPLACEMENT: Final = "\ufffd"
"""What stands in place of a character that cannot be encoded."""

_TOKEN: Final = re.compile(r'[\[\]{}"]')
_STRING: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class JSONProblem(enum.StrEnum):
    """Why untrusted JSON was refused."""

    TOO_DEEP = "too_deep"
    """Nested deeper than allowed."""
    TOO_LARGE = "too_large"
    """Longer than allowed."""
    NOT_JSON = "not_json"
    """Not a JSON document (or not text)."""


class UntrustedJSON(ValueError):
    """Untrusted JSON that was refused; ``code`` says why, the message in words."""

    def __init__(self, code: JSONProblem, message: str) -> None:
        super().__init__(message)
        self.code = code


def nesting_within(text: str, max_depth: int = MAX_DEPTH, start: int = 0) -> bool:
    """Tell whether the JSON at ``start`` nests no deeper than ``max_depth``, without recursion.

    Strings are skipped exactly as the decoder reads them, so brackets inside
    them do not count. Scanning stops where the first value opened at or
    after ``start`` closes, or at an unterminated string (where the decoder
    would stop too). Text that is not JSON may be judged either way; the
    decoder refuses it anyway, and never recurses past the depth seen here.
    """
    if text.count("[", start) + text.count("{", start) <= max_depth:
        return True  # too few openers to nest deeper, wherever they stand: no scan needed
    depth = 0
    opened = False
    pos = start
    while True:
        found = _TOKEN.search(text, pos)
        if found is None:
            return True
        char = found.group()
        if char == '"':
            string = _STRING.match(text, found.start())
            if string is None:
                return True
            pos = string.end()
            continue
        pos = found.end()
        if char in "[{":
            depth += 1
            opened = True
            if depth > max_depth:
                return False
            continue
        depth -= 1
        if opened and depth <= 0:
            return True


def _as_text(data: str | bytes | bytearray) -> str:
    if isinstance(data, str):
        return data
    try:
        return bytes(data).decode(json.detect_encoding(data))
    except (UnicodeDecodeError, LookupError):
        raise UntrustedJSON(JSONProblem.NOT_JSON, "the document is not valid text") from None


def _check(text: str, max_depth: int, max_chars: int, start: int = 0) -> None:
    if len(text) > max_chars:
        raise UntrustedJSON(
            JSONProblem.TOO_LARGE, f"the document is longer than {max_chars} characters"
        )
    if not nesting_within(text, max_depth, start):
        raise UntrustedJSON(
            JSONProblem.TOO_DEEP, f"the document nests deeper than {max_depth} levels"
        )


def loads(
    data: str | bytes | bytearray,
    *,
    max_depth: int = MAX_DEPTH,
    max_chars: int = MAX_CHARS,
    **options: Any,
) -> Any:
    """Decode one JSON document from outside, within the bounds.

    Parameters
    ----------
    data
        The document (bytes are decoded as JSON text: UTF-8, -16 or -32).
    max_depth, max_chars
        The bounds checked before decoding.
    **options
        Passed to ``json.loads`` (``object_pairs_hook``, ``parse_float``...).

    Raises
    ------
    UntrustedJSON
        ``too_deep``, ``too_large``, or ``not_json`` (the decoder's own
        error, or a hook's ``ValueError``, is chained as the cause).
    """
    text = _as_text(data)
    _check(text, max_depth, max_chars)
    try:
        return json.loads(text, **options)
    except UntrustedJSON:
        raise
    except (ValueError, RecursionError) as exc:
        raise UntrustedJSON(JSONProblem.NOT_JSON, f"not JSON: {exc}") from exc


def raw_decode(
    decoder: json.JSONDecoder,
    text: str,
    position: int,
    *,
    max_depth: int = MAX_DEPTH,
) -> tuple[Any, int]:
    """Decode the JSON value starting at ``position`` (``JSONDecoder.raw_decode``), bounded.

    Raises
    ------
    UntrustedJSON
        ``too_deep``, or ``not_json`` when no value starts there.
    """
    if not nesting_within(text, max_depth, position):
        raise UntrustedJSON(
            JSONProblem.TOO_DEEP, f"the document nests deeper than {max_depth} levels"
        )
    try:
        value, end = decoder.raw_decode(text, position)
    except (ValueError, RecursionError) as exc:
        raise UntrustedJSON(JSONProblem.NOT_JSON, f"not JSON: {exc}") from exc
    return value, end


def has_lone_surrogate(value: object) -> bool:
    """Tell whether a text, or any text in a decoded JSON value, holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item) is not None:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def clean_text(text: str) -> str:
    """Return ``text`` with every character UTF-8 cannot hold replaced by U+FFFD.

    Examples
    --------
    >>> clean_text("ok " + chr(0xD800)) == "ok " + REPLACEMENT
    True
    """
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(REPLACEMENT, text)


def clean_value(value: Any) -> Any:
    """Return a decoded JSON value with every text in it (keys too) passed through `clean_text`.

    The value must come from a bounded decode (``loads``): the walk recurses
    once per level.
    """
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(k)): clean_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(clean_value(v) for v in value)
    return value


VISIBLE: Final = (
    "[^\\x00-\\x20\\x7f-\\xa0\\xad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890-\\u0891"
    "\\u08e2\\u1680\\u180e\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u2064\\u2066-\\u206f"
    "\\u3000\\ufeff\\ufff9-\\ufffb\\U000110bd\\U000110cd\\U00013430-\\U00013438"
    "\\U0001bca0-\\U0001bca3\\U0001d173-\\U0001d17a\\U000e0001\\U000e0020-\\U000e007f]"
)
"""A pattern found in any text `is_blank` calls not blank: one visible character.

Every white space, control and format character (Unicode 14, this Python's)
excluded; a JSON Schema ``pattern`` (unanchored), so a document says what a
route reads. A test holds it equal to `is_blank` over every code point."""


def is_blank(text: str) -> bool:
    """Tell whether ``text`` holds nothing visible: white space and format characters only.

    Examples
    --------
    >>> is_blank(" " + chr(0x200B) + chr(0x2060))
    True
    """
    return all(ch.isspace() or unicodedata.category(ch) in ("Cf", "Cc") for ch in text)


def bounded_int(value: int, low: int, high: int) -> int:
    """Return ``value`` clamped into ``[low, high]`` (a huge number from outside stays usable)."""
    return max(low, min(high, value))
