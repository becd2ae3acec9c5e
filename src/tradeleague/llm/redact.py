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

The model's own answer text is never passed through here: it is kept exactly
as received (C-4). Only error texts and response snippets are.
"""

from __future__ import annotations

import math
import re
from collections import Counter

__all__ = ["KEY_CHARS_SHOWN", "REDACTED", "looks_like_secret", "redact_secrets"]

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


def _redact_key_pieces(text: str, key: str) -> str:
    """Replace every run of ``key`` longer than ``KEY_CHARS_SHOWN`` found in ``text``."""
    size = min(KEY_CHARS_SHOWN + 1, len(key))
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
