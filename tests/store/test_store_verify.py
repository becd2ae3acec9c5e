"""Verification finds tampering behind the triggers' back, and the CLI says so (SPEC C-4, C-5)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.money import qty, usd
from tradeleague.sim import Fill, Side
from tradeleague.store import Store, account_key, account_opened, open_store, order_filled, verify

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


def _tamper_event(store: Store, seq: int, payload: str) -> None:
    """Change a stored payload with the append-only triggers out of the way."""
    with store.engine.begin() as conn:
        if store.backend == "postgresql":
            conn.execute(sa.text("ALTER TABLE events DISABLE TRIGGER USER"))
            conn.execute(
                sa.text("UPDATE events SET payload = :p WHERE seq = :s"), {"p": payload, "s": seq}
            )
            conn.execute(sa.text("ALTER TABLE events ENABLE TRIGGER USER"))
        else:
            ddl = conn.execute(
                sa.text("SELECT sql FROM sqlite_master WHERE name = 'events_no_update'")
            ).scalar_one()
            conn.execute(sa.text("DROP TRIGGER events_no_update"))
            conn.execute(
                sa.text("UPDATE events SET payload = :p WHERE seq = :s"), {"p": payload, "s": seq}
            )
            conn.execute(sa.text(ddl))


def test_an_honest_log_verifies(db_url: str) -> None:
    """C-4: chain and projections agree; the report says what it checked."""
    with open_store(db_url) as store:
        _season(store)
        report = verify(store)
    assert report.ok
    assert (report.events, report.streams, report.head_seq) == (3, 1, 3)
    (check,) = [c for c in report.projections if c.name == "portfolio"]
    assert (check.keys, check.cursor, check.behind) == (1, 3, 0)
    result = CliRunner().invoke(app, ["verify", "--db", db_url])
    assert result.exit_code == 0, result.output
    assert "OK" in result.output
    assert "3 events" in result.output


def test_an_edited_amount_is_found_at_its_seq(db_url: str) -> None:
    """C-4: an amount changed behind the triggers breaks the hash at that seq and the portfolio."""
    with open_store(db_url) as store:
        _season(store)
        original = next(s for s in store.events() if s.seq == 2).event.payload
        forged = json.loads(json.dumps(original))
        forged["fill"]["qty"] = "5000000"
        forged["fill"]["value"] = "750000000"
        _tamper_event(store, 2, json.dumps(forged, sort_keys=True, separators=(",", ":")))
        report = verify(store)
    assert not report.ok
    found = {(m.check, m.seq) for m in report.mismatches}
    assert ("hash", 2) in found
    assert all(m.seq != 1 and m.seq != 3 for m in report.mismatches if m.check == "hash")
    assert any(
        m.check == "projection_state" and m.key == account_key(STREAM, "alice")
        for m in report.mismatches
    )

    runner = CliRunner()
    result = runner.invoke(app, ["verify", "--db", db_url, "--json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert data["ok"] is False
    assert {"check": "hash", "seq": 2} in [
        {"check": m["check"], "seq": m["seq"]} for m in data["mismatches"]
    ]
    table = runner.invoke(app, ["verify", "--db", db_url])
    assert table.exit_code == 1
    assert "FAILED" in table.output
    assert "hash" in table.output


def test_a_forged_hash_breaks_the_next_link(db_url: str) -> None:
    """C-4: rewriting a payload *and* its hash still breaks the link from the next event."""
    with open_store(db_url) as store:
        _season(store)
        with store.engine.begin() as conn:
            if store.backend == "postgresql":
                conn.execute(sa.text("ALTER TABLE events DISABLE TRIGGER USER"))
            else:
                conn.execute(sa.text("DROP TRIGGER events_no_update"))
            conn.execute(sa.text("UPDATE events SET hash = :h WHERE seq = 1"), {"h": "f" * 64})
        report = verify(store)
    found = {(m.check, m.seq) for m in report.mismatches}
    assert ("hash", 1) in found
    assert ("link", 2) in found


def test_a_tampered_projection_is_reported_with_its_key(db_url: str) -> None:
    """C-4: a stored read model that its events do not give is a mismatch, key named."""
    key = account_key(STREAM, "alice")
    with open_store(db_url) as store:
        _season(store)
        honest = store.projection("portfolio", key)
        assert isinstance(honest, dict)
        forged = dict(honest, cash=str(int(str(honest["cash"])) + 1_000_000))
        with store.engine.begin() as conn:
            conn.execute(
                sa.text("UPDATE projections SET state = :s WHERE name = 'portfolio' AND key = :k"),
                {"s": json.dumps(forged), "k": key},
            )
        report = verify(store)
    assert [(m.check, m.projection, m.key) for m in report.mismatches] == [
        ("projection_state", "portfolio", key)
    ]
    assert report.mismatches[0].seq == 3


def test_a_deleted_projection_row_is_missing(db_url: str) -> None:
    with open_store(db_url) as store:
        _season(store)
        with store.engine.begin() as conn:
            conn.execute(sa.text("DELETE FROM projections"))
        report = verify(store)
    assert [m.check for m in report.mismatches] == ["projection_missing"]


@pytest.mark.parametrize("garbage", ["{not json", '{"account":"alice","cash":1.5}'])
def test_a_malformed_row_is_reported_not_raised(sqlite_url: str, garbage: str) -> None:
    """C-4: verify reports a row that is not an event (bad JSON, a float) instead of crashing."""
    with open_store(sqlite_url) as store:
        _season(store)
        _tamper_event(store, 1, garbage)
        report = verify(store)
    assert ("malformed", 1) in {(m.check, m.seq) for m in report.mismatches}


def _cut_tail(store: Store, keep: int) -> None:
    """Delete events after ``keep`` and rewrite the head row: invisible to the chain alone."""
    with store.engine.begin() as conn:
        if store.backend == "postgresql":
            conn.execute(sa.text("ALTER TABLE events DISABLE TRIGGER USER"))
            conn.execute(sa.text("DELETE FROM events WHERE seq > :k"), {"k": keep})
            conn.execute(sa.text("ALTER TABLE events ENABLE TRIGGER USER"))
        else:
            ddl = conn.execute(
                sa.text("SELECT sql FROM sqlite_master WHERE name = 'events_no_delete'")
            ).scalar_one()
            conn.execute(sa.text("DROP TRIGGER events_no_delete"))
            conn.execute(sa.text("DELETE FROM events WHERE seq > :k"), {"k": keep})
            conn.execute(sa.text(ddl))
        head = conn.execute(sa.text("SELECT hash FROM events WHERE seq = :k"), {"k": keep})
        conn.execute(
            sa.text("UPDATE chain_head SET seq = :k, hash = :h WHERE id = 1"),
            {"k": keep, "h": head.scalar_one()},
        )
        conn.execute(sa.text("DELETE FROM projections"))
        conn.execute(sa.text("DELETE FROM projection_cursors"))


def test_a_published_checkpoint_catches_a_cut_tail(db_url: str) -> None:
    """C-4: events cut from the end with the head rewritten pass the chain, not the checkpoint."""
    with open_store(db_url) as store:
        _season(store)
        published = (store.head().seq, store.head().hash)
        assert verify(store, checkpoint=published).ok
        _cut_tail(store, keep=1)
        store.refresh_projections()
        assert verify(store).ok  # the chain alone cannot tell
        report = verify(store, checkpoint=published)
    assert not report.ok
    assert [m.check for m in report.mismatches] == ["checkpoint"]
    cli = CliRunner().invoke(
        app, ["verify", "--db", db_url, "--checkpoint", f"{published[0]}:{published[1]}"]
    )
    assert cli.exit_code == 1
    assert "checkpoint" in cli.output
    bad = CliRunner().invoke(app, ["verify", "--db", db_url, "--checkpoint", "3:xyz"])
    assert bad.exit_code != 0


def test_verify_says_in_words_what_behind_means(db_url: str) -> None:
    """Events after a projection's refresh are 'behind': said in words, expected, not a failure."""
    with open_store(db_url) as store:
        _season(store)
        store.append([account_opened("S2", "bob", usd(5), T0)])  # appended after the refresh
        (check,) = [c for c in verify(store).projections if c.name == "portfolio"]
        assert check.behind == 1
    result = CliRunner().invoke(app, ["verify", "--db", db_url])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "behind: the events recorded after a projection's stored state was last refreshed" in (
        text
    )
    assert "not yet folded into that read model" in text
    assert "This is expected and not a mismatch" in text
    assert "tradeleague db refresh --db" in text
    refreshed = CliRunner().invoke(app, ["db", "refresh", "--db", db_url])
    assert refreshed.exit_code == 0, refreshed.output
    again = CliRunner().invoke(app, ["verify", "--db", db_url])
    assert again.exit_code == 0, again.output
    assert "behind:" not in again.output  # nothing behind: nothing to explain
