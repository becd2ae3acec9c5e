"""Tamper evidence with no holes: replacing inserts, payload bytes, signed heads (SPEC C-4, C-5)."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from tradeleague.cli import app, main
from tradeleague.events import Event
from tradeleague.money import qty, usd
from tradeleague.sim import Fill, Side
from tradeleague.store import Store, account_opened, chain_hash, open_store, order_filled, verify

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)
STREAM = "season-1"


def _season(store: Store) -> None:
    store.append(
        [
            account_opened(STREAM, "alice", usd(10_000), T0),
            order_filled(STREAM, "alice", Fill.at("AAPL", Side.BUY, qty(10), usd("150")), T0),
            order_filled(
                STREAM,
                "alice",
                Fill.at("AAPL", Side.SELL, qty(4), usd("151.25"), fee=usd("0.61")),
                T0 + timedelta(hours=1),
            ),
        ]
    )
    store.refresh_projections()


def _main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["tradeleague", *args])
    with pytest.raises(SystemExit) as stop:
        main()
    code = stop.value.code
    assert isinstance(code, int)
    return code


def _set_payload(store: Store, seq: int, text: str) -> None:
    """Rewrite a stored payload's bytes with the append-only triggers out of the way."""
    with store.engine.begin() as conn:
        if store.backend == "postgresql":
            conn.execute(sa.text("ALTER TABLE events DISABLE TRIGGER USER"))
            conn.execute(
                sa.text("UPDATE events SET payload = :p WHERE seq = :s"), {"p": text, "s": seq}
            )
            conn.execute(sa.text("ALTER TABLE events ENABLE TRIGGER USER"))
        else:
            ddl = conn.execute(
                sa.text("SELECT sql FROM sqlite_master WHERE name = 'events_no_update'")
            ).scalar_one()
            conn.execute(sa.text("DROP TRIGGER events_no_update"))
            conn.execute(
                sa.text("UPDATE events SET payload = :p WHERE seq = :s"), {"p": text, "s": seq}
            )
            conn.execute(sa.text(ddl))


def test_sqlite_refuses_replace_into_events(sqlite_url: str) -> None:
    """C-4: REPLACE deletes without firing DELETE triggers; an insert trigger refuses it."""
    with open_store(sqlite_url) as store:
        _season(store)
        before = [(s.seq, s.hash) for s in store.events()]
        for verb in ("REPLACE INTO", "INSERT OR REPLACE INTO"):
            with pytest.raises(sa.exc.DBAPIError, match="append-only"), store.engine.begin() as c:
                c.execute(
                    sa.text(
                        f"{verb} events (seq, event_id, stream, kind, occurred_at, payload, "
                        "prev_hash, hash) SELECT seq, event_id, stream, kind, occurred_at, "
                        "'{}', prev_hash, hash FROM events WHERE seq = 2"
                    )
                )
        assert [(s.seq, s.hash) for s in store.events()] == before
        assert verify(store).ok


def test_postgres_upsert_on_events_fires_the_update_trigger(pg_url: str) -> None:
    """C-4: PostgreSQL's replacing insert is an UPDATE, which the trigger rejects."""
    with open_store(pg_url) as store:
        _season(store)
        with pytest.raises(sa.exc.DBAPIError, match="append-only"), store.engine.begin() as c:
            c.execute(
                sa.text(
                    "INSERT INTO events SELECT * FROM events WHERE seq = 2 "
                    "ON CONFLICT (seq) DO UPDATE SET payload = '{}'"
                )
            )
        assert verify(store).ok


def test_a_duplicate_key_added_to_a_payload_is_found(db_url: str) -> None:
    """C-4: a key repeated in the stored text parses to the hashed payload, yet is refused."""
    with open_store(db_url) as store:
        _season(store)
        original = next(s for s in store.events() if s.seq == 1).event.payload_json
        assert original.startswith("{")
        _set_payload(store, 1, '{"account":"mallory",' + original[1:])
        report = verify(store)
    assert ("malformed", 1) in {(m.check, m.seq) for m in report.mismatches}
    assert any("twice" in m.detail for m in report.mismatches)


def test_a_payload_not_in_canonical_form_is_found(db_url: str) -> None:
    """C-4: the bytes kept must be the canonical text the hash was taken over."""
    with open_store(db_url) as store:
        _season(store)
        payload = next(s for s in store.events() if s.seq == 2).event.payload
        _set_payload(store, 2, json.dumps(payload, indent=1))
        report = verify(store)
    assert [(m.check, m.seq) for m in report.mismatches] == [("payload_form", 2)]


def _info_head(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: str
) -> str:
    assert _main(monkeypatch, "db", "info", "--db", url) == 0
    out = capsys.readouterr().out
    (token,) = re.findall(r"^head (\d+:[0-9a-f]{64})$", out, flags=re.MULTILINE)
    return str(token)


def test_db_info_prints_the_head_as_one_token(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The head `SEQ:HASH` is printed whole on one line, easy to copy into `verify`."""
    with open_store(sqlite_url) as store:
        _season(store)
        head = store.head()
    monkeypatch.setenv("COLUMNS", "40")
    assert _info_head(monkeypatch, capsys, sqlite_url) == f"{head.seq}:{head.hash}"
    assert _main(monkeypatch, "verify", "--db", sqlite_url, "--checkpoint", f"3:{head.hash}") == 0
    capsys.readouterr()
    assert _main(monkeypatch, "db", "info", "--db", sqlite_url, "--json") == 0
    assert json.loads(capsys.readouterr().out)["head_hash"] == head.hash


@pytest.mark.parametrize(
    "checkpoint",
    [f"{2**63}:{'a' * 64}", f"{10**40}:{'a' * 64}", "3:xyz", "x:y", "3", f"-1:{'a' * 64}"],
)
def test_a_checkpoint_out_of_range_is_one_sentence_and_exit_2(
    sqlite_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    checkpoint: str,
) -> None:
    """A seq past 2^63 or a malformed SEQ:HASH: one sentence on stderr, exit 2, no traceback."""
    with open_store(sqlite_url) as store:
        _season(store)
    assert _main(monkeypatch, "verify", "--db", sqlite_url, "--checkpoint", checkpoint) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    said = " ".join(captured.err.split())
    assert "checkpoint" in said.lower()
    assert said.count("error:") == 1
    assert said.endswith(".")


def _forge_append(store: Store) -> None:
    """Append an event around the store with a correctly recomputed hash and head."""
    head = store.head()
    forged = account_opened(STREAM, "mallory", usd(1_000_000), T0 + timedelta(hours=2))
    digest = chain_hash(head.hash, head.seq + 1, forged)
    with store.engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO events (seq, event_id, stream, kind, occurred_at, payload, "
                "prev_hash, hash) VALUES (:s, :i, :st, :k, :o, :p, :ph, :h)"
            ),
            {
                "s": head.seq + 1,
                "i": forged.id,
                "st": forged.stream,
                "k": forged.kind,
                "o": forged.occurred_at if store.backend == "postgresql" else "2026-01-05 17:00:00",
                "p": forged.payload_json,
                "ph": head.hash,
                "h": digest,
            },
        )
        conn.execute(
            sa.text("UPDATE chain_head SET seq = :s, hash = :h WHERE id = 1"),
            {"s": head.seq + 1, "h": digest},
        )


def test_a_signed_head_catches_a_forged_append_and_a_cut_tail(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """C-4: what the chain cannot prove alone, a signed, published head does."""
    key, signed = tmp_path / "head.key", tmp_path / "head.json"
    with open_store(db_url) as store:
        _season(store)
    assert _main(monkeypatch, "db", "keygen", "--out", str(key)) == 0
    public = capsys.readouterr().out.split()[-1]
    assert (key.stat().st_mode & 0o777) == 0o600
    assert _main(monkeypatch, "db", "keygen", "--out", str(key)) == 2  # never overwritten
    capsys.readouterr()
    args = ["db", "sign-head", "--db", db_url, "--key", str(key), "--out", str(signed)]
    assert _main(monkeypatch, *args) == 0
    check = ["verify", "--db", db_url, "--checkpoint", str(signed), "--to-head"]
    assert _main(monkeypatch, *check, "--signer", public) == 0
    capsys.readouterr()

    with open_store(db_url) as store:
        _forge_append(store)
        assert verify(store).ok  # the chain alone cannot tell
    assert _main(monkeypatch, *check) == 1
    assert "unsigned_tail" in capsys.readouterr().out

    # a head re-signed by someone else's key is refused when the signer is pinned
    other = tmp_path / "other.key"
    assert _main(monkeypatch, "db", "keygen", "--out", str(other)) == 0
    forged = tmp_path / "forged.json"
    assert (
        _main(
            monkeypatch,
            "db",
            "sign-head",
            "--db",
            db_url,
            "--key",
            str(other),
            "--out",
            str(forged),
        )
        == 0
    )
    capsys.readouterr()
    pinned = ["verify", "--db", db_url, "--checkpoint", str(forged), "--signer", public]
    assert _main(monkeypatch, *pinned) == 2
    assert "signed by key" in " ".join(capsys.readouterr().err.split())

    # an edited signed head no longer verifies
    doc = json.loads(signed.read_text())
    doc["seq"] = 2
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc))
    assert _main(monkeypatch, "verify", "--db", db_url, "--checkpoint", str(edited)) == 2
    assert "does not match" in " ".join(capsys.readouterr().err.split())


def test_a_signed_head_file_that_is_garbage_is_one_sentence(
    sqlite_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Hostile checkpoint files (deep, huge, wrong types) are refused in one sentence."""
    with open_store(sqlite_url) as store:
        _season(store)
    for name, text in {
        "deep.json": "[" * 100_000,
        "huge.json": json.dumps({"v": 1, "pad": "x" * 100_000}),
        "types.json": json.dumps({"v": 1, "seq": 1.5, "hash": 3}),
        "nested": "{}",
    }.items():
        path = tmp_path / name
        path.write_text(text)
        assert _main(monkeypatch, "verify", "--db", sqlite_url, "--checkpoint", str(path)) == 2
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
    assert _main(monkeypatch, "verify", "--db", sqlite_url, "--checkpoint", "/nonexistent:x") == 2


def test_the_cli_round_trip_of_an_event_store_event(sqlite_url: str) -> None:
    """An honest store still verifies through the CLI after these checks were added."""
    with open_store(sqlite_url) as store:
        _season(store)
        store.append([Event(STREAM, "Note", {"text": "é \u200b"}, T0)])
    result = CliRunner().invoke(app, ["verify", "--db", sqlite_url])
    assert result.exit_code == 0, result.output


def test_events_past_a_projection_cursor_must_still_fold(db_url: str) -> None:
    """C-4: a forked season (an account opened twice) fails verify though no projection read it."""
    with open_store(db_url) as store:
        _season(store)
        assert verify(store).ok
        store.append([account_opened(STREAM, "alice", usd(10_000), T0 + timedelta(hours=3))])
        report = verify(store)
    assert [(m.check, m.seq) for m in report.mismatches] == [("projection_error", 4)]
    assert "twice" in report.mismatches[0].detail
