"""One writer per stream, and appends that expect where their stream ends (C-4, C-5)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tradeleague.errors import StoreError
from tradeleague.events import Event
from tradeleague.store import open_store, verify

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)


def _ev(stream: str, n: int) -> Event:
    return Event(stream, "Noted", {"n": n}, T0)


def test_a_second_replay_of_a_stream_is_refused_naming_the_holder(db_url: str) -> None:
    """C-4: a replay's first append claims its stream; another store cannot write it."""
    with open_store(db_url) as first, open_store(db_url) as second:
        first.deriving_ids().append([_ev("season-a", 1)])
        with pytest.raises(StoreError, match=rf"being written by process {os.getpid()} on "):
            second.deriving_ids().append([_ev("season-a", 2)])
        second.deriving_ids().append([_ev("season-b", 1)])  # another stream is free
        first.deriving_ids().append([_ev("season-a", 3)])  # the holder keeps writing
        assert first.count("season-a") == 2
    with open_store(db_url) as third:  # closing the holder freed the stream
        third.deriving_ids().append([_ev("season-a", 4)])
        assert verify(third).ok


def test_plain_stores_share_streams_as_the_service_needs(db_url: str) -> None:
    """A plain store (the scenario service, the live arena's reads) claims nothing by itself."""
    with open_store(db_url) as first, open_store(db_url) as second:
        first.append([_ev("run-1", 1)])
        second.append([_ev("run-1", 2)])
        assert first.count("run-1") == 2


def test_an_append_after_another_writer_moved_the_stream_fails(db_url: str) -> None:
    """C-4 optimistic concurrency: a claimed stream must end where its writer last saw it."""
    with open_store(db_url) as holder, open_store(db_url) as intruder:
        replay = holder.deriving_ids()
        replay.append([_ev("season-a", 1)])
        intruder.append([_ev("season-a", 99)])  # around the lock: a plain, buggy writer
        with pytest.raises(StoreError, match="another process wrote it; nothing was written"):
            replay.append([_ev("season-a", 2)])
        assert holder.count("season-a") == 2
        # a writer that reads the stream to its end again sees where it ends now
        assert len(list(replay.events("season-a"))) == 2
        replay.append([_ev("season-a", 3)])
        assert holder.count("season-a") == 3


def test_a_process_keeps_no_note_per_unclaimed_stream(db_url: str) -> None:
    """C-4: only claimed streams' ends are kept; a server writing and reading every run's
    stream keeps at most SEEN_KEPT notes, and a claimed stream's expectation survives."""
    from tradeleague.store.writers import SEEN_KEPT

    with open_store(db_url) as store:
        replay = store.deriving_ids()
        replay.append([_ev("season-a", 1)])
        for n in range(50):  # plain appends (live rounds, scenario runs): no note each
            store.append([_ev(f"run-{n}", n)])
        writers = store._writers  # the bound is the point of this test
        assert set(writers.seen) == {"season-a"}
        for n in range(SEEN_KEPT + 10):  # reads of unclaimed streams to their ends
            writers.saw(f"read-{n}", n)
        assert len(writers.seen) <= SEEN_KEPT
        assert "season-a" in writers.seen
        with open_store(db_url) as intruder:  # around the lock: the claim still catches it
            intruder.append([_ev("season-a", 99)])
        with pytest.raises(StoreError, match="another process wrote it; nothing was written"):
            replay.append([_ev("season-a", 2)])


def test_a_finished_writer_leaves_no_lock_file_beside_the_database(tmp_path: Path) -> None:
    """C-4's SQLite lock files go when their writer closes (issue 30: nothing litters)."""
    url = f"sqlite:///{tmp_path / 'league.db'}"
    folder = tmp_path / "league.db-writers"
    with open_store(url) as first, open_store(url) as second:
        first.deriving_ids().append([_ev("season-a", 1)])
        second.deriving_ids().append([_ev("season-b", 1)])
        assert len(list(folder.iterdir())) == 2
        first.close()
        assert len(list(folder.iterdir())) == 1  # the other writer's lock stays
        with pytest.raises(StoreError, match="being written by"):
            open_store(url).deriving_ids().append([_ev("season-b", 2)])
    assert not folder.exists()
    with open_store(url) as again:  # a later writer claims a fresh lock
        again.deriving_ids().append([_ev("season-a", 2)])
        assert folder.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["league.db"]


def test_a_lock_file_removed_under_a_claim_is_claimed_anew(tmp_path: Path) -> None:
    """A claim that locked a file its finished holder had just removed claims the new one."""
    from tradeleague.store.writers import still_there

    path = tmp_path / "x.lock"
    with path.open("ab") as opened:
        path.unlink()
        assert not still_there(opened, path)
        path.touch()
        assert not still_there(opened, path)
    with path.open("ab") as current:
        assert still_there(current, path)
