"""Scrubbing secrets out of the error texts a call record keeps (C-9).

A provider's error text is recorded in the ``CallRecord`` and from there in
``ModelCalled`` events and public payloads, so it must never hold a key. Many
providers quote the key they were sent: OpenAI echoes its prefix and last four
characters (``Incorrect API key provided: sk-proj-****...abcd``), some
compatible servers echo it whole, or echo the ``Authorization`` header.
``redact_secrets`` replaces, with ``[redacted]``:

- every piece of the key that was sent longer than ``KEY_CHARS_SHOWN``
  characters (the whole key, its prefix, its suffix, any run of it): C-9 lets
  an owner's last four characters show, never more;
- anything that looks like a secret token whatever the key: ``sk-...`` keys
  (masked echoes included), the credential after ``Bearer`` or ``Basic``, the
  value of ``key=`` / ``api_key=`` / ``token=``, other providers' key shapes
  (``gsk_``, ``xai-``, ``hf_``, ``AIza``...), and long high-entropy runs of
  letters and digits (``looks_like_secret``).

The model's own answer text is kept as received (C-4) with one exception:
``remove_key`` takes the key that was sent out of it, in the forms a model
could be led to echo it (whole or in long runs, reversed, base64 at any
alignment, hex, percent-encoded, or spelt with JSON, Python or HTML character
escapes), before the answer is stored or shown, so a
prompt-injected agent cannot publish its owner's key (C-9). Nothing else in an
answer is touched: a high-entropy token a model writes is its own business.
"""

from __future__ import annotations

import base64
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from tradeleague.llm.types import ModelReply

__all__ = [
    "ANSWER_RUN_CHARS",
    "KEY_CHARS_SHOWN",
    "REDACTED",
    "key_forms",
    "looks_like_secret",
    "redact_secrets",
    "remove_key",
    "reply_without_key",
]

REDACTED = "[redacted]"
"""What stands in place of a removed secret."""

KEY_CHARS_SHOWN = 4
"""The most characters of a key a text may still show in one run (C-9: the last 4)."""

SEGMENT_MIN_CHARS = 16
"""A dash- or underscore-free stretch this long, of letters and digits, is judged alone."""

SEGMENT_MIN_BITS = 3.0
"""Entropy per character above which such a stretch reads as a secret (hex keys included)."""

RUN_MIN_CHARS = 32
"""A run of token characters at least this long is judged whole as well."""

ANSWER_RUN_CHARS = 12
"""A run of the key (or of it reversed) this long is removed from an answer.

Longer than an error text's limit so that ordinary words sharing a few
characters with a key's public prefix (``risk-or-reward``, ``sk-or-v1-``) stay.
"""

RUN_MIN_BITS = 4.5
"""Entropy per character above which such a run reads as a secret (base64 keys)."""

_KEY_PREFIX = re.compile(
    r"\bsk[-_][A-Za-z0-9_*.\u2026\-]{4,}"  # OpenAI, Anthropic, OpenRouter, DeepSeek, masked too
    r"|\b(?:gsk_|xai-|hf_|pplx-|nvapi-|AIza)[A-Za-z0-9_\-]{16,}"  # other providers' keys
)
_SCHEME = re.compile(r"(?i)\b(Bearer|Basic)(\s+)[^\s\"',;]+")
_ASSIGNED = re.compile(r"(?i)\b(api[_-]?key|access[_-]?token|token|key)(=)[^\s&\"',;]+")
_RUN = re.compile(rf"[A-Za-z0-9_+=\-]{{{SEGMENT_MIN_CHARS},}}")
_SEGMENT_SPLIT = re.compile(r"[-_]")


def redact_secrets(text: str, key: str | None = None) -> str:
    """Return ``text`` with the key sent and anything that looks like a secret replaced.

    Parameters
    ----------
    text
        An error text or a snippet of a response body.
    key
        The key that was sent with the request, if known. Every run of it
        longer than ``KEY_CHARS_SHOWN`` characters is removed (a key that short
        is removed whole wherever it appears).

    Returns
    -------
    str
        The text, each secret replaced by ``[redacted]``.
    """
    for pattern in (_SCHEME, _ASSIGNED):
        text = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _KEY_PREFIX.sub(REDACTED, text)
    text = _RUN.sub(lambda m: REDACTED if looks_like_secret(m.group(0)) else m.group(0), text)
    # last, so that nothing the patterns left behind can still hold a piece of the key
    return _redact_key_pieces(text, key) if key else text


def looks_like_secret(run: str) -> bool:
    """Tell whether a run of token characters reads as a random secret.

    A run qualifies when a stretch of it between dashes and underscores is at
    least ``SEGMENT_MIN_CHARS`` long, mixes letters and digits and carries more
    than ``SEGMENT_MIN_BITS`` bits of entropy per character, or when the whole
    run is at least ``RUN_MIN_CHARS`` long, mixes letters and digits and
    carries more than ``RUN_MIN_BITS``: random keys, hashes and base64 blobs
    do; model names (``claude-3-5-sonnet-20241022``), words joined by
    underscores and CamelCase names (``APIResponseValidationError``) do not.
    A key this misses is still removed when it is the key that was sent.
    """
    if any(
        len(segment) >= SEGMENT_MIN_CHARS
        and _mixed(segment)
        and _entropy_bits(segment) > SEGMENT_MIN_BITS
        for segment in _SEGMENT_SPLIT.split(run)
    ):
        return True
    return len(run) >= RUN_MIN_CHARS and _mixed(run) and _entropy_bits(run) > RUN_MIN_BITS


def _mixed(text: str) -> bool:
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def _entropy_bits(text: str) -> float:
    """Return the Shannon entropy of ``text``'s characters, in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def key_forms(key: str) -> tuple[str, ...]:
    """Return the encodings of ``key`` a text could hold it in, longest first.

    Base64 (standard and URL-safe, padded or not) of the key alone and of its
    bytes from each of the three alignments it can take inside a longer encoded
    text; hex (either case); percent-encoding of every byte and of the unsafe
    ones only. Forms no longer than ``KEY_CHARS_SHOWN`` are left out.
    """
    raw = key.encode("utf-8")
    forms = {quote(key, safe=""), raw.hex(), "".join(f"%{b:02x}" for b in raw)}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        forms.add(encode(raw).decode("ascii"))
        for skip in range(3):
            core = raw[skip:]
            core = core[: len(core) // 3 * 3]
            if core:
                forms.add(encode(core).decode("ascii"))
    return tuple(sorted((f for f in forms if len(f) > KEY_CHARS_SHOWN), key=len, reverse=True))


def remove_key(text: str, key: str | None) -> str:
    """Return a model's answer with every form of the key that was sent replaced (C-9).

    Parameters
    ----------
    text
        The answer, as received.
    key
        The key sent with the request; ``None`` or empty leaves ``text`` as is.

    Returns
    -------
    str
        ``text`` with runs of the key or of it reversed (at least
        ``ANSWER_RUN_CHARS`` long, or the whole key if shorter) and every
        `key_forms` encoding (hex and percent-encoding in either case) replaced
        by ``[redacted]``.
    """
    if not key:
        return text
    size = min(ANSWER_RUN_CHARS, len(key))
    ascii_text = text.isascii()
    folded = text.lower() if ascii_text else ""
    for lowered, pattern in _form_patterns(key):
        # an ASCII text can hold an (ASCII) form, in any case, only if its lower case does;
        # other texts go to the pattern, whose case rules reach beyond ASCII
        if ascii_text and lowered not in folded:
            continue
        replaced = pattern.sub(REDACTED, text)
        if replaced != text:
            text = replaced
            folded = text.lower() if ascii_text else ""
    text = _redact_key_pieces(text, key, size)
    return _redact_key_pieces(text, key[::-1], size)


@lru_cache(maxsize=256)
def _form_patterns(key: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Return each of `key_forms`, lower-cased and compiled (case-blind), once per key."""
    return tuple(
        (form.lower(), re.compile(re.escape(form), re.IGNORECASE)) for form in key_forms(key)
    )


@lru_cache(maxsize=256)
def _key_chunks(key: str, size: int) -> tuple[str, ...]:
    """Return pieces of ``key`` such that every run of it ``size`` long holds one whole.

    The pieces are ``key`` cut at every multiple of ``ceil(size / 2)``; a run of
    ``size`` characters starting anywhere spans ``2 * ceil(size / 2) - 1`` or
    more, so it holds one piece from its first cut on. A text holding none of
    the pieces holds no run of the key ``size`` long.
    """
    piece = (size + 1) // 2
    return tuple(dict.fromkeys(key[a : a + piece] for a in range(0, len(key) - piece + 1, piece)))


def reply_without_key(reply: ModelReply, key: str | None) -> ModelReply:
    """Return ``reply`` with the key sent taken out of its answer and tool calls (C-9).

    Applied where the key is known (the provider that sent it, the gateway that
    passed it) before anything is recorded or shown: the ``ModelCalled``
    record, the decision's text and every page are made from this reply.
    """
    if not key:
        return reply
    text = None if reply.text is None else remove_key(reply.text, key)
    calls = tuple(_strings_without_key(c, key) for c in reply.tool_calls)
    if text == reply.text and calls == reply.tool_calls:
        return reply
    return replace(reply, text=text, tool_calls=calls)


def _strings_without_key(value: Any, key: str) -> Any:
    if isinstance(value, str):
        return remove_key(value, key)
    if isinstance(value, Mapping):
        return {remove_key(str(k), key): _strings_without_key(v, key) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strings_without_key(v, key) for v in value]
    return value


def _redact_key_pieces(text: str, key: str, shown: int = KEY_CHARS_SHOWN + 1) -> str:
    r"""Replace every run of ``key`` at least ``shown`` characters long found in ``text``.

    Runs written with escapes count too: a character may stand as itself or
    as a JSON, Python or HTML escape of it (``\u0073``, ``\x73``, ``&#115;``,
    ``&#x73;``), since a reader that decodes the answer would show the key.
    """
    starts: list[int] | None = None
    view = text
    if "\\" in text or "&#" in text:
        view, starts = _decoded(text)
    if not any(chunk in view for chunk in _key_chunks(key, min(shown, len(key)))):
        return text  # no run of the key this long can be there
    spans = _key_spans(view, key, shown)
    if starts is not None:
        spans = [(starts[a], starts[b]) for a, b in spans]
    if not spans:
        return text
    out: list[str] = []
    last = 0
    for start, end in spans:
        out.append(text[last:start])
        out.append(REDACTED)
        last = end
    out.append(text[last:])
    return "".join(out)


_ESCAPE = re.compile(
    r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));"
)


def _decoded(text: str) -> tuple[str, list[int]]:
    """Return ``text`` with character escapes decoded, and where each character began.

    ``starts[i]`` is the index in ``text`` of the decoded character ``i``;
    ``starts[len(view)]`` is ``len(text)``.
    """
    if "\\" not in text and "&#" not in text:
        return text, list(range(len(text) + 1))
    chars: list[str] = []
    starts: list[int] = []
    i = 0
    for match in _ESCAPE.finditer(text):
        for j in range(i, match.start()):
            chars.append(text[j])
            starts.append(j)
        decimal = match.group(4)
        code = int(decimal) if decimal else int(next(g for g in match.groups() if g), 16)
        chars.append(chr(code) if code <= 0x10FFFF else "\ufffd")
        starts.append(match.start())
        i = match.end()
    for j in range(i, len(text)):
        chars.append(text[j])
        starts.append(j)
    starts.append(len(text))
    return "".join(chars), starts


def _key_spans(text: str, key: str, shown: int) -> list[tuple[int, int]]:
    """Return the merged spans of ``text`` that are runs of ``key`` at least ``shown`` long."""
    size = min(shown, len(key))
    grams = {key[i : i + size] for i in range(len(key) - size + 1)}
    spans: list[tuple[int, int]] = []
    i = 0
    while i <= len(text) - size:
        if text[i : i + size] not in grams:
            i += 1
            continue
        end = i + size
        while end < len(text) and text[i : end + 1] in key:
            end += 1
        if spans and i <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((i, end))
        i += 1
    return spans
