"""A model that echoes its owner's key, in any common encoding, publishes none of it (C-9).

A prompt-injected agent can be led to write the key it was called with into its
answer. The gateway takes every form of it out before the answer is recorded, so
no event, REPORT.json, JSON route or page can show it.
"""

from __future__ import annotations

import base64
import html
import json
import secrets
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.llm.redact import ANSWER_RUN_CHARS, REDACTED, key_forms, remove_key
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.terminal.exits import EXIT_NO_DECISIONS
from tradeleague.testing.fake_provider import FakeProvider

SYMBOLS = "SPY,QQQ,SGOV"


def _encodings(key: str) -> dict[str, str]:
    raw = key.encode()
    return {
        "plain": key,
        "reversed": key[::-1],
        "base64": base64.b64encode(raw).decode(),
        "base64url": base64.urlsafe_b64encode(raw).decode().rstrip("="),
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "percent": "".join(f"%{b:02X}" for b in raw),
        "quoted": quote(key, safe=""),
    }


def _leaks(text: str, key: str) -> list[str]:
    """Return the names of the key's forms ``text`` still holds (runs of it included)."""
    found = [name for name, form in _encodings(key).items() if form.lower() in text.lower()]
    outside = text.replace(REDACTED, "\0")
    n = ANSWER_RUN_CHARS
    found += [f"run {key[i : i + n]}" for i in range(len(key) - n + 1) if key[i : i + n] in outside]
    return found


@given(
    key=st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", min_size=20),
    before=st.binary(max_size=5),
    after=st.binary(max_size=5),
)
def test_remove_key_finds_base64_of_the_key_inside_a_longer_blob(
    key: str, before: bytes, after: bytes
) -> None:
    """C-9: the key encoded in the middle of other bytes shows at any of three alignments."""
    blob = base64.b64encode(before + key.encode() + after).decode()
    cleaned = remove_key(f"see {blob} and {key[::-1]}", key)
    core = [f for f in key_forms(key) if f in blob]
    assert core, "one aligned form of the key is always inside the blob"
    assert not any(f in cleaned for f in core)
    assert key[::-1] not in cleaned


_ESCAPES = {
    "json": lambda c: f"\\u{ord(c):04x}",
    "JSON": lambda c: f"\\u{ord(c):04X}",
    "python": lambda c: f"\\x{ord(c):02x}",
    "html": lambda c: f"&#{ord(c)};",
    "html-hex": lambda c: f"&#x{ord(c):x};",
}


@given(
    key=st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", min_size=20),
    style=st.sampled_from(sorted(_ESCAPES)),
    escaped=st.lists(st.booleans(), min_size=80, max_size=80),
)
def test_remove_key_finds_the_key_written_with_character_escapes(
    key: str, style: str, escaped: list[bool]
) -> None:
    """C-9: a key spelt with escapes, some or all of its characters, is removed whole.

    A reader that decodes the answer (a JSON parser, a browser) would otherwise
    show the key in clear.
    """
    spelt = "".join(
        _ESCAPES[style](c) if escaped[i % len(escaped)] else c for i, c in enumerate(key)
    )
    answer = '{"reason": "my key is ' + spelt + '", "weights": {}}'
    cleaned = remove_key(answer, key)
    assert REDACTED in cleaned
    shown = html.unescape(json.loads(cleaned.replace("\\x", "\\u00"))["reason"])
    n = ANSWER_RUN_CHARS
    assert not any(key[i : i + n] in shown for i in range(len(key) - n + 1))
    assert cleaned.startswith('{"reason": "my key is ')


def test_remove_key_keeps_escapes_that_spell_no_key() -> None:
    """Escapes that are not the key stay as written."""
    key = f"sk-or-v1-{secrets.token_hex(24)}"
    answer = '{"reason": "caf\\u00e9 &#233; \\x41", "x": 1}'
    assert remove_key(answer, key) == answer


def test_remove_key_keeps_an_answer_without_the_key() -> None:
    """Words that share a few characters with a key's public prefix stay as they are."""
    key = f"sk-or-v1-{secrets.token_hex(24)}"
    answer = '{"reason": "risk-or-reward is fine; sk-or-v1- keys are the norm", "x": 1}'
    assert remove_key(answer, key) == answer
    assert remove_key(answer, None) == answer


@pytest.fixture
def market(shared_data: Path, tmp_path: Path) -> Path:
    (tmp_path / "bars").mkdir()
    for symbol in SYMBOLS.split(","):
        bars = shared_data / "us_equities_daily" / f"{symbol}.csv"
        (tmp_path / "bars" / f"{symbol}.csv").symlink_to(bars)
    return tmp_path / "bars"


@pytest.mark.shared_data
def test_an_answer_echoing_the_key_leaves_no_form_of_it_anywhere(
    market: Path, tmp_path: Path
) -> None:
    """C-9: events, REPORT.json, JSON routes and pages hold none of the key's forms."""
    key = f"sk-or-v1-{secrets.token_hex(24)}"
    forms = _encodings(key)
    reason = "Keys: " + " | ".join(f"{name} {form}" for name, form in forms.items())
    answer = json.dumps({"targets": {"SPY": 60, "QQQ": 30}, "reason": reason})
    db = f"sqlite:///{tmp_path / 'season.db'}"
    report = tmp_path / "REPORT.json"
    with FakeProvider() as fake:
        fake.script_model("leaky", f"{answer}\n{key} {forms['base64']}")
        result = CliRunner().invoke(
            app,
            [
                "replay",
                "weights",
                "--market",
                str(market),
                "--symbols",
                SYMBOLS,
                "--start",
                "2026-07-06",
                "--end",
                "2026-07-09",
                "--season",
                "leak",
                "--agent",
                f"leaky=openai:leaky@{fake.url},key_env=OPENAI_API_KEY",
                "--agent",
                "cash=baseline:cash",
                "--db",
                db,
                "--out",
                str(report),
            ],
            env={"OPENAI_API_KEY": key, "COLUMNS": "200"},
        )
        # It answered, never validly (text after the JSON): exit 3 and its own line.
        assert result.exit_code == EXIT_NO_DECISIONS, result.output
        assert "leaky answered 3 times, 0 valid: not_in_format 3" in result.output
        assert fake.requests, "the model was asked"
    assert not _leaks(result.output, key)
    assert not _leaks(report.read_text(encoding="utf-8"), key)
    with open_store(db) as store:
        with store.engine.connect() as conn:
            payloads = [
                str(p) for p in conn.execute(sa.text("SELECT payload FROM events")).scalars()
            ]
        assert any(REDACTED in p for p in payloads), "the marker stands where the key was"
        assert not [p for p in payloads if _leaks(p, key)]
        clock = ReplayClock(datetime(2026, 7, 20, tzinfo=UTC))
        service = ScenarioService(store, clock)
        with TestClient(create_site(service, clock=clock)) as client:
            season = "/api/v1/weights/seasons/leak"
            for path in (
                "/api/v1/weights", season, f"{season}/tables/open", f"{season}/agents/leaky",
                "/weights", "/weights/leak", "/weights/leak/agents/leaky",
            ):  # fmt: skip
                got = client.get(path)
                assert got.status_code == 200, (path, got.text[:300])
                assert not _leaks(got.text, key), path
