"""The host signs its chain head after every slot and publishes it to a file (issue 10).

A replay-clock host with ``head_key`` and ``head_out`` writes a signed head
that names the store's last event; ``verify --checkpoint FILE --to-head`` with
the key's public half passes on it, and an event appended afterwards with a
recomputed hash is caught. The two keys go together, and the head file's
folder must exist.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from host_helpers import replay_league  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.errors import ConfigError
from tradeleague.events import Event
from tradeleague.host.config import parse_league
from tradeleague.host.heads import HeadPublisher
from tradeleague.store import open_store, verify
from tradeleague.store.signing import generate_key, read_signed_head

SPAN = ["--from", "2025-09-02T00:00Z", "--to", "2025-09-03T00:00Z"]


def _with_heads(league: Path, key: Path, out: Path) -> None:
    text = league.read_text(encoding="utf-8")
    heads = f'head_key = "{key}"\nhead_out = "{out}"\n'
    league.write_text(text.replace("[league]\n", "[league]\n" + heads, 1), encoding="utf-8")


def test_the_host_publishes_a_signed_head_that_verify_accepts(
    shared_data: Path, tmp_path: Path
) -> None:
    """C-4: the published head names the last event, signed by the league's key."""
    db = f"sqlite:///{tmp_path / 'host.db'}"
    key, out = tmp_path / "head.key", tmp_path / "public" / "head.json"
    out.parent.mkdir()
    public = generate_key(key)
    league = replay_league(tmp_path / "league.toml", shared_data, db, direction=False)
    _with_heads(league, key, out)
    result = CliRunner().invoke(app, ["run", "--config", str(league), "--clock", "replay", *SPAN])
    assert result.exit_code == 0, result.output
    signed = read_signed_head(out)
    assert signed.public_key == public
    assert signed.signature_valid()
    with open_store(db) as store:
        head = store.head()
        assert (signed.seq, signed.hash) == (head.seq, head.hash)
        assert head.seq > 0
        assert verify(store, checkpoint=(signed.seq, signed.hash), to_head=True).ok
        last = next(iter(store.events(after_seq=head.seq - 1))).event
        store.append([Event(last.stream, "Forged", {"by": "someone"}, last.occurred_at)])
        caught = verify(store, checkpoint=(signed.seq, signed.hash), to_head=True)
    assert [m.check for m in caught.mismatches] == ["unsigned_tail"]
    assert list(tmp_path.joinpath("public").iterdir()) == [out]  # no partial file left


def test_head_key_and_head_out_go_together(tmp_path: Path) -> None:
    """One without the other, or a head file in a missing folder, is a mistake with its line."""
    key = tmp_path / "head.key"
    generate_key(key)
    body = '[direction]\nmarket = "."\n[[direction.agents]]\nname = "up"\nspec = "baseline:up"\n'
    with pytest.raises(ConfigError, match="line 2: head_key needs head_out beside it"):
        parse_league(f'[league]\nhead_key = "{key}"\n{body}', tmp_path / "l.toml")
    with pytest.raises(ConfigError, match="line 2: head_out needs head_key beside it"):
        parse_league(f'[league]\nhead_out = "h.json"\n{body}', tmp_path / "l.toml")
    with pytest.raises(ConfigError, match=r"head_out 'gone/h\.json' is not in an existing folder"):
        parse_league(
            f'[league]\nhead_key = "{key}"\nhead_out = "gone/h.json"\n{body}', tmp_path / "l.toml"
        )
    (tmp_path / "heads").mkdir()
    with pytest.raises(ConfigError, match="head_out 'heads' is a folder: name a file in it"):
        parse_league(
            f'[league]\nhead_key = "{key}"\nhead_out = "heads"\n{body}', tmp_path / "l.toml"
        )
    config = parse_league(
        f'[league]\nhead_key = "{key}"\nhead_out = "h.json"\n{body}', tmp_path / "l.toml"
    )
    assert (config.head_key, config.head_out) == (key.resolve(), (tmp_path / "h.json").resolve())


def test_a_head_that_cannot_be_written_is_logged_and_play_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Publishing is evidence about the record, never a reason to stop keeping it."""
    key = tmp_path / "head.key"
    generate_key(key)
    gone = tmp_path / "gone" / "head.json"
    with open_store(f"sqlite:///{tmp_path / 'h.db'}") as store:
        assert HeadPublisher(key, gone).publish(store) is None
        written = HeadPublisher(key, tmp_path / "head.json").publish(store)
    assert written is not None
    assert written.seq == 0
    assert [r.getMessage() for r in caplog.records] == ["signed head not written"]
