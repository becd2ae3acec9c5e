"""``verify --since SEQ``: a daily audit from a signed head onward (C-4).

The chain after a signed checkpoint is re-hashed and linked to the
checkpoint's hash; no event at or before it is read, so one tampered with
before the checkpoint goes unseen here (a whole ``verify`` finds it) and one
after it fails.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from tradeleague.cli import main
from tradeleague.events import Event
from tradeleague.money import qty, usd
from tradeleague.sim import Fill, Side
from tradeleague.store import Store, account_opened, open_store, order_filled

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)
STREAM = "season-1"


def _main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["tradeleague", *args])
    with pytest.raises(SystemExit) as stop:
        main()
    code = stop.value.code
    assert isinstance(code, int)
    return code


def _rename(store: Store, seq: int, old: str, new: str) -> None:
    """Rewrite one stored payload (still canonical JSON) around the append-only trigger."""
    with store.engine.begin() as conn:
        text = conn.execute(sa.text("SELECT payload FROM events WHERE seq = :s"), {"s": seq})
        payload = str(text.scalar_one()).replace(old, new)
        ddl = conn.execute(
            sa.text("SELECT sql FROM sqlite_master WHERE name = 'events_no_update'")
        ).scalar_one()
        conn.execute(sa.text("DROP TRIGGER events_no_update"))
        conn.execute(
            sa.text("UPDATE events SET payload = :p WHERE seq = :s"), {"p": payload, "s": seq}
        )
        conn.execute(sa.text(ddl))


def _fill(agent: str, hours: int) -> Event:
    return order_filled(
        STREAM, agent, Fill.at("AAPL", Side.BUY, qty(1), usd("150")), T0 + timedelta(hours=hours)
    )


def test_verify_since_reads_only_after_the_signed_head_c_4(
    sqlite_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """C-4: a tampered event after the checkpoint fails; one before it is not read."""
    key, signed = tmp_path / "head.key", tmp_path / "head.json"
    with open_store(sqlite_url) as store:
        store.append([account_opened(STREAM, "alice", usd(10_000), T0), _fill("alice", 1)])
        store.append([account_opened(STREAM, "bobby", usd(10_000), T0), _fill("bobby", 1)])
    assert _main(monkeypatch, "db", "keygen", "--out", str(key)) == 0
    assert _main(monkeypatch, "db", "sign-head", "--db", sqlite_url, "--key", str(key),
                 "--out", str(signed)) == 0  # fmt: skip
    assert json.loads(signed.read_text())["seq"] == 4
    with open_store(sqlite_url) as store:  # a day's events after the signed head
        store.append([account_opened(STREAM, "carol", usd(10_000), T0), _fill("carol", 2)])
        store.append([_fill("carol", 3)])
    capsys.readouterr()
    since = ["verify", "--db", sqlite_url, "--since", "4", "--checkpoint", str(signed)]

    assert _main(monkeypatch, *since, "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["since"], report["events"], report["head_seq"]) == (4, 3, 7)
    assert report["ok"]
    assert report["projections"] == []

    with open_store(sqlite_url) as store:  # before the checkpoint: not read by --since
        _rename(store, 1, "alice", "alicf")
    assert _main(monkeypatch, *since) == 0
    assert "after seq 4" in " ".join(capsys.readouterr().out.split())
    assert _main(monkeypatch, "verify", "--db", sqlite_url) == 1  # a whole verify finds it
    capsys.readouterr()

    with open_store(sqlite_url) as store:  # after the checkpoint: found, by its seq
        _rename(store, 6, "carol", "carom")
    assert _main(monkeypatch, *since, "--json") == 1
    found = json.loads(capsys.readouterr().out)["mismatches"]
    assert [(m["check"], m["seq"]) for m in found] == [("hash", 6)]


def test_verify_since_needs_the_head_signed_at_that_seq(
    sqlite_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--since without a signed head file, or with one signed elsewhere, is one sentence."""
    key, signed = tmp_path / "head.key", tmp_path / "head.json"
    with open_store(sqlite_url) as store:
        store.append([account_opened(STREAM, "alice", usd(10_000), T0), _fill("alice", 1)])
    assert _main(monkeypatch, "db", "keygen", "--out", str(key)) == 0
    assert _main(monkeypatch, "db", "sign-head", "--db", sqlite_url, "--key", str(key),
                 "--out", str(signed)) == 0  # fmt: skip
    capsys.readouterr()
    cases = {
        ("--since", "2"): "needs --checkpoint FILE",
        ("--since", "1", "--checkpoint", str(signed)): "signed at seq 2",
        ("--since", "2", "--checkpoint", str(signed), "--to-head"): "drop --to-head",
    }
    for extra, words in cases.items():
        assert _main(monkeypatch, "verify", "--db", sqlite_url, *extra) == 2
        assert words in " ".join(capsys.readouterr().err.split())
    # a head rewritten to the forged chain's hash: the signature no longer holds
    doc = json.loads(signed.read_text())
    doc["hash"] = "0" * 64
    signed.write_text(json.dumps(doc))
    assert _main(monkeypatch, "verify", "--db", sqlite_url, "--since", "2",
                 "--checkpoint", str(signed)) == 2  # fmt: skip
    assert "does not match" in " ".join(capsys.readouterr().err.split())
