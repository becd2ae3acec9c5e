"""The redaction's quick checks change nothing: the same text as the plain scans (C-9).

``remove_key`` skips a key form whose lower case an ASCII text lacks, and
``_redact_key_pieces`` skips the per-character scan when no piece of the key is
there; the oracle below is the plain scan: every form through its pattern, and
every position of the (decoded) text tried against every run of the key.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tradeleague.llm.redact import (
    ANSWER_RUN_CHARS,
    KEY_CHARS_SHOWN,
    REDACTED,
    key_forms,
    redact_secrets,
    remove_key,
)
from tradeleague.llm.redact import _decoded as decoded


def _plain_pieces(text: str, key: str, shown: int) -> str:
    view, starts = decoded(text)
    size = min(shown, len(key))
    grams = {key[i : i + size] for i in range(len(key) - size + 1)}
    spans: list[tuple[int, int]] = []
    for i in range(len(view) - size + 1):
        if view[i : i + size] not in grams:
            continue
        end = i + size
        while end < len(view) and view[i : end + 1] in key:
            end += 1
        if spans and i <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((i, end))
    out, last = [], 0
    for a, b in spans:
        out += [text[last : starts[a]], REDACTED]
        last = starts[b]
    return "".join(out) + text[last:]


def _plain_remove(text: str, key: str) -> str:
    size = min(ANSWER_RUN_CHARS, len(key))
    for form in key_forms(key):
        text = re.sub(re.escape(form), REDACTED, text, flags=re.IGNORECASE)
    text = _plain_pieces(text, key, size)
    return _plain_pieces(text, key[::-1], size)


_KEYS = st.sampled_from(
    ["sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "gsk_0123456789abcdef", "k3yÿ", "abc", "sk-x"]
)


@st.composite
def _texts_near(draw: st.DrawFn, key: str) -> str:
    """Texts made of pieces of ``key``, its forms, escapes and noise, in mixed case."""
    forms = key_forms(key)
    parts = st.one_of(
        st.text(alphabet="ab3-_ {}\\&#;xu0ſKı", max_size=6),
        st.builds(lambda a, n: key[a : a + n], st.integers(0, len(key)), st.integers(1, len(key))),
        st.builds(lambda a, n: key[::-1][a : a + n], st.integers(0, len(key)), st.integers(1, 20)),
        st.sampled_from(forms) if forms else st.just(""),
        st.builds(lambda c: f"\\u{ord(c):04x}", st.sampled_from(key)),
        st.builds(lambda c: f"&#{ord(c)};", st.sampled_from(key)),
    )
    text = "".join(draw(st.lists(parts, max_size=8)))
    return draw(st.sampled_from([text, text.upper(), text.lower(), text.swapcase()]))


@settings(max_examples=300, deadline=None)
@given(st.data(), _KEYS)
def test_remove_key_equals_the_plain_scan(data: st.DataObject, key: str) -> None:
    """C-9: the quick checks of ``remove_key`` leave every answer as the plain scan does."""
    text = data.draw(_texts_near(key))
    assert remove_key(text, key) == _plain_remove(text, key)


@settings(max_examples=300, deadline=None)
@given(st.data(), _KEYS)
def test_redact_secrets_key_pieces_equal_the_plain_scan(data: st.DataObject, key: str) -> None:
    """C-9: an error text loses every run of the key over four characters, as before."""
    text = data.draw(_texts_near(key))
    no_key = redact_secrets(text)
    assert redact_secrets(text, key) == _plain_pieces(no_key, key, KEY_CHARS_SHOWN + 1)
