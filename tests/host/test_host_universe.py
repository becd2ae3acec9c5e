"""W-UNI-1, W-UNI-2, W-PX-4: a hosted weights season's universe is read from the chain at its
start, recorded with every input, kept to the season's end, and shown.

A real JSON-RPC peer on loopback lists 25 registry entries (three broken: a feed silent
for three days, one answering zero, one reporting other decimals than on record); a host
under the replay clock with rolling 28-day seasons plays across a season boundary. The
first season's universe is the 20 valid symbols with the largest value outstanding; a
registry change made mid-season changes nothing until the next season opens.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner
from universe_helpers import (  # type: ignore[import-not-found]
    BROKEN,
    CHAIN,
    STALE,
    SYMBOLS,
    WRONG_DECIMALS,
    ZERO,
    expected_universe,
    listing,
    registry_text,
    script_peer,
    write_registry,
)

from tradeleague.cli import app
from tradeleague.clock import ReplayClock
from tradeleague.events import Event, EventKind, check_events
from tradeleague.events.host import NO_UNIVERSE, SLOT_MISSED, host_stream
from tradeleague.events.weights import UNIVERSE_CHOSEN, UNIVERSE_ROW_FIELDS
from tradeleague.feeds.registry import load_registry
from tradeleague.league.weights.config import WeightsAgent, WeightsConfig
from tradeleague.league.weights.driver import WeightsDriver
from tradeleague.store import open_store, verify
from tradeleague.testing.jsonrpc_peer import JsonRpcPeer
from tradeleague.testing.ports import refusing_url

pytestmark = pytest.mark.shared_data

SEASON1, SEASON2 = "U-2025-09-01", "U-2025-09-29"
START1 = datetime(2025, 9, 1, tzinfo=UTC)
START2 = datetime(2025, 9, 29, tzinfo=UTC)


def _league(path: Path, data: Path, db: str, *, end: bool = True) -> Path:
    path.write_text(
        f"""
[league]
db = "{db}"

[weights]
season = "U"
start = 2025-09-01
{"end = 2025-10-27" if end else ""}
roll = true
market = "{data / "us_equities_daily"}"
feeds = "feeds.toml"
rpc_url_env = "TEST_RPC_URL"

[[weights.agents]]
name = "equal"
spec = "baseline:equal_weight"
division = "open"
""",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def peer() -> Iterator[JsonRpcPeer]:
    with JsonRpcPeer(chain_id=CHAIN) as p:
        script_peer(p, START1 - timedelta(hours=1))
        yield p


def _events(db: str, stream: str) -> list[Event]:
    with open_store(db, upgrade=False) as store:
        return [s.event for s in store.events(stream)]


def _universe(events: list[Event]) -> list[dict[str, Any]]:
    return [dict(e.payload) for e in events if e.kind == UNIVERSE_CHOSEN]


def _round_symbols(events: list[Event]) -> list[set[str]]:
    return [
        {str(s) for s in e.payload["prices"]}  # type: ignore[attr-defined]
        for e in events
        if e.kind == EventKind.ROUND_STARTED
    ]


def _cli(*args: str, cwd: Path, rpc: str) -> subprocess.CompletedProcess[str]:
    """Run the real ``tradeleague`` command, as a user would."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src, "TEST_RPC_URL": rpc, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "tradeleague.cli", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip


def _run(league: Path, start: str, end: str) -> None:
    result = CliRunner().invoke(
        app, ["run", "--config", str(league), "--clock", "replay", "--from", start, "--to", end]
    )
    assert result.exit_code == 0, result.output


def test_host_season_start_records_the_universe_and_keeps_it_to_the_season_end(
    shared_data: Path, tmp_path: Path, peer: JsonRpcPeer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W-UNI-1, W-UNI-2, W-PX-4: the 20 valid symbols with the largest value outstanding,
    every input recorded; a mid-season registry change waits for the next season."""
    monkeypatch.setenv("TEST_RPC_URL", peer.url)
    db = f"sqlite:///{tmp_path / 'league.db'}"
    registry = write_registry(tmp_path / "feeds.toml", registry_text())
    league = _league(tmp_path / "league.toml", shared_data, db)

    # A Thursday late in the first season: the season opens at its first round played.
    _run(league, "2025-09-25T00:00Z", "2025-09-26T00:00Z")
    season1 = _events(db, f"weights/{SEASON1}")
    (universe,) = _universe(season1)
    chosen = expected_universe()
    assert universe["symbols"] == chosen
    assert len(chosen) == 20
    started = next(e for e in season1 if e.kind == EventKind.SEASON_STARTED)
    assert started.payload["symbols"] == chosen
    assert universe["read_at"] == "2025-09-01T00:00:00.000000Z"  # the season's first instant
    assert universe["registry"] == "feeds"
    assert universe["chain_id"] == CHAIN
    rows = {r["symbol"]: r for r in universe["rows"]}
    assert sorted(rows) == sorted(SYMBOLS)  # every entry on record, chosen or not
    for symbol, row in rows.items():
        assert sorted(row) == sorted(UNIVERSE_ROW_FIELDS)
        listed = listing(SYMBOLS.index(symbol), symbol)
        assert row["supply"] == str(listed.supply)
        assert row["supply_decimals"] == 18
        assert row["chosen"] is (symbol in chosen)
        if symbol in BROKEN:
            assert row["left_out"] == BROKEN[symbol]
            assert row["rank"] is None
            assert row["value"] is None
        else:
            assert row["price"] == str(listed.answer // 100)
            assert row["value"] == str(listed.value_micros)
            assert row["left_out"] == (None if symbol in chosen else "outside_top")
    assert rows[ZERO]["invalid"] == "not_positive"
    assert rows[WRONG_DECIMALS]["invalid"] == "decimals_changed"
    assert rows[WRONG_DECIMALS]["reported_decimals"] == 18
    assert rows[STALE]["invalid"] is None  # a valid price, but its feed stopped publishing
    ranked = sorted((r for r in rows.values() if r["rank"] is not None), key=lambda r: r["rank"])
    assert [r["rank"] for r in ranked] == list(range(1, 23))
    values = [int(r["value"]) for r in ranked]
    assert values == sorted(values, reverse=True)
    thursday = _round_symbols(season1)
    assert thursday
    assert all(s == set(chosen) for s in thursday)

    # Mid-season, the registry changes: the largest chosen token leaves, a new large one joins.
    dropped = ranked[0]["symbol"]
    kept = tuple(s for s in SYMBOLS if s != dropped)
    write_registry(registry, registry_text(kept, extra={"IBM": 25}))
    script_peer(peer, START2 - timedelta(hours=1), extra={"IBM": 25})
    # Friday (the first season still) and Monday (the next season).
    _run(league, "2025-09-26T00:00Z", "2025-09-30T00:00Z")
    season1 = _events(db, f"weights/{SEASON1}")
    assert len(_universe(season1)) == 1  # read once, at the season's start
    friday = _round_symbols(season1)[len(thursday) :]
    assert friday
    assert all(s == set(chosen) for s in friday)

    season2 = _events(db, f"weights/{SEASON2}")
    (universe2,) = _universe(season2)
    assert universe2["read_at"] == "2025-09-29T00:00:00.000000Z"
    assert universe2["symbols"] == expected_universe(kept, extra={"IBM": 25})
    assert "IBM" in universe2["symbols"]
    assert dropped not in universe2["symbols"]
    assert all(s == set(universe2["symbols"]) for s in _round_symbols(season2))
    assert _round_symbols(season2)

    with open_store(db, upgrade=False) as store:
        everything = [s.event for s in store.events()]
        assert verify(store).ok
    assert check_events([e for e in everything if e.stream.startswith("weights/")], "weights") == []

    # REPORT.json names the universe; status shows it.
    out = tmp_path / "report.json"
    runner = CliRunner()
    done = runner.invoke(app, ["report", "--db", db, "--season", SEASON1, "--out", str(out)])
    assert done.exit_code == 0, done.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["universe"]["symbols"] == chosen
    assert report["universe"]["rows"] == universe["rows"]
    status = runner.invoke(app, ["status", "--db", db, "--json"])
    assert status.exit_code == 0, status.output
    shown = {f["season"]: f["universe"] for f in json.loads(status.stdout)["formats"]}
    assert shown[SEASON1]["symbols"] == chosen
    assert shown[SEASON1]["built_from"] == "chain"
    assert {r["symbol"]: r["left_out"] for r in shown[SEASON1]["rows"]}[STALE] == "stale"
    text = runner.invoke(app, ["status", "--db", db])
    assert f"universe: 20 symbols read from the chain at {universe['read_at']}" in text.stdout
    assert "AMZN (stale), AVGO (price_invalid: not_positive)" in text.stdout

    # A replay takes the universe from the recorded season, and its report names it.
    replayed = tmp_path / "replayed.json"
    done = runner.invoke(app, [
        "replay", "weights", "--market", str(shared_data / "us_equities_daily"),
        "--agent", "equal=baseline:equal_weight", "--universe-from", db,
        "--universe-season", SEASON1, "--start", "2025-09-22", "--end", "2025-09-27",
        "--db", f"sqlite:///{tmp_path / 'replay.db'}", "--out", str(replayed),
    ])  # fmt: skip
    assert done.exit_code == 0, done.output
    again = json.loads(replayed.read_text(encoding="utf-8"))
    assert again["universe"]["symbols"] == chosen
    assert again["universe"]["taken_from"] == SEASON1
    assert again["universe"]["rows"] == universe["rows"]
    assert all(set(r["prices"]) == set(chosen) for r in again["rounds"])
    assert again["rounds"]

    # The methodology page and its JSON route show the latest season's universe.
    from tradeleague.clock import WallClock
    from tradeleague.league.scenario import ScenarioService
    from tradeleague.site import create_site

    with open_store(db, upgrade=False) as store:
        site = create_site(ScenarioService(store, WallClock()))
        with TestClient(site) as client:
            body = client.get("/api/v1/weights/universe").json()
            html = client.get("/methodology/weights").text
            first = client.get(f"/api/v1/weights/seasons/{SEASON1}/universe").json()
            page1 = client.get(f"/methodology/weights?season={SEASON1}").text
    assert body["season"] == SEASON2
    assert body["symbols"] == universe2["symbols"]
    assert first["symbols"] == chosen
    assert [r["symbol"] for r in first["rows"]][:2] == [ranked[0]["symbol"], ranked[1]["symbol"]]
    assert f"Universe of season {SEASON2}" in html
    assert f"Universe of season {SEASON1}" in page1
    for symbol in chosen:
        assert f'<tr data-symbol="{symbol}" class="chosen">' in page1
    assert '<tr data-symbol="AMZN" class="left-out">' in page1
    assert "its feed last published more than 25 hours before the freshest feed" in page1


def test_an_unreadable_universe_misses_the_slot_and_the_next_slot_tries_again(
    shared_data: Path, tmp_path: Path, peer: JsonRpcPeer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W-UNI-1: no node, no universe: the season does not open on guesses; the slot is
    recorded missed (no_universe) and never played late; the next slot reads again."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    write_registry(tmp_path / "feeds.toml", registry_text())
    league = _league(tmp_path / "league.toml", shared_data, db)
    monkeypatch.setenv("TEST_RPC_URL", refusing_url())  # nothing listens there
    _run(league, "2025-09-25T15:00Z", "2025-09-25T16:00Z")
    (missed,) = _events(db, host_stream("weights"))
    assert missed.kind == SLOT_MISSED
    assert missed.payload["reason"] == NO_UNIVERSE
    assert "could not be read" in str(missed.payload["detail"])
    assert _events(db, f"weights/{SEASON1}") == []

    monkeypatch.setenv("TEST_RPC_URL", peer.url)
    _run(league, "2025-09-25T15:00Z", "2025-09-25T17:00Z")
    season = _events(db, f"weights/{SEASON1}")
    assert _universe(season)[0]["symbols"] == expected_universe()
    played = [e.payload["round"] for e in season if e.kind == EventKind.ROUND_FINISHED]
    assert played == ["2025-09-25T16:00:00.000000Z"]  # 15:00 stays missed
    with open_store(db, upgrade=False) as store:
        assert verify(store).ok


def test_universe_command_prints_the_next_season_and_writes_nothing(
    shared_data: Path, tmp_path: Path, peer: JsonRpcPeer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W-UNI-1, W-PX-4: `tradeleague universe` reads what a season start reads, prints it,
    and writes no database; an unreachable node or a bad file is one sentence, exit 2."""
    now = datetime.now(UTC).replace(microsecond=0)
    script_peer(peer, now - timedelta(minutes=10))
    monkeypatch.setenv("TEST_RPC_URL", peer.url)
    write_registry(tmp_path / "feeds.toml", registry_text())
    league = _league(
        tmp_path / "league.toml", shared_data, f"sqlite:///{tmp_path / 'x.db'}", end=False
    )
    runner = CliRunner()
    done = runner.invoke(app, ["universe", "--config", str(league), "--json"])
    assert done.exit_code == 0, done.output
    view = json.loads(done.stdout)
    assert view["symbols"] == expected_universe()
    assert view["built_from"] == "chain"
    starts = date.fromisoformat(view["starts"])
    assert view["season"] == f"U-{starts.isoformat()}"
    assert starts > now.date()
    assert (starts - date(2025, 9, 1)).days % 28 == 0  # the next rolling season
    left = {r["symbol"]: (r["left_out"], r["invalid"]) for r in view["rows"]}
    assert left[STALE] == ("stale", None)
    assert left[ZERO] == ("price_invalid", "not_positive")
    assert left[WRONG_DECIMALS] == ("price_invalid", "decimals_changed")
    text = runner.invoke(app, ["universe", "--config", str(league)])
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert "would hold these 20 symbols if it started now" in lines[0]
    assert sum(line.rstrip().endswith("  yes") for line in lines) == 20
    assert any(line.split()[1:2] == [ZERO] and "(not_positive)" in line for line in lines)
    assert not (tmp_path / "x.db").exists()  # nothing written

    dead = _cli("universe", "--config", str(league), cwd=tmp_path, rpc=refusing_url())
    assert dead.returncode == 2, dead.stderr
    assert [line for line in dead.stderr.splitlines() if line.strip()] == [
        line for line in dead.stderr.splitlines() if line.startswith("error: ")
    ]
    assert "could not be read" in dead.stderr
    assert "Traceback" not in dead.stderr
    (tmp_path / "feeds.toml").write_text("feeds = 3\n", encoding="utf-8")
    bad = _cli("universe", "--config", str(league), cwd=tmp_path, rpc=peer.url)
    assert bad.returncode == 2
    assert "'feeds' must map each symbol to its feed" in bad.stderr
    assert not (tmp_path / "x.db").exists()


def test_the_documented_example_runs_against_the_local_peer(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W-UNI-1: examples/universe/ (the registry format the docs show, on the local peer's
    addresses) gives a universe of 20 of its 23 entries, and a replay-clock host opens its
    first season with it."""
    example = Path(__file__).resolve().parents[2] / "examples" / "universe"
    registry = load_registry(example / "feeds.toml")
    now = int(datetime.now(UTC).timestamp())
    with JsonRpcPeer(chain_id=registry.chain_id or 0, block_time=now) as peer:
        peer.list_registry(registry, now - 60)
        monkeypatch.setenv("TRADELEAGUE_RPC_URL", peer.url)
        runner = CliRunner()
        done = runner.invoke(app, ["universe", "--config", str(example / "league.toml"), "--json"])
        assert done.exit_code == 0, done.output
        view = json.loads(done.stdout)
        assert len(view["symbols"]) == 20
        left = {r["symbol"]: r["left_out"] for r in view["rows"] if r["left_out"]}
        assert left.pop("QQQ") == "no_token"
        assert list(left.values()) == ["outside_top", "outside_top"]
        db = f"sqlite:///{tmp_path / 'example.db'}"
        done = runner.invoke(app, [
            "run", "--config", str(example / "league.toml"), "--clock", "replay",
            "--from", "2025-09-02T00:00Z", "--to", "2025-09-03T00:00Z", "--db", db,
        ])  # fmt: skip
        assert done.exit_code == 0, done.output
    (universe,) = _universe(_events(db, "weights/U-2025-09-01"))
    assert universe["symbols"] == view["symbols"]
    assert not (example / "universe.db").exists()


def test_the_peer_refuses_a_bad_registry_in_one_sentence(tmp_path: Path) -> None:
    """The local peer's command line names a bad registry file and exits 2."""
    from tradeleague.testing.jsonrpc_peer import main

    (tmp_path / "feeds.toml").write_text("feeds = 1\n", encoding="utf-8")
    assert main(["--registry", str(tmp_path / "feeds.toml"), "--port", "0"]) == 2


async def test_a_live_season_reads_its_rounds_from_the_feeds_it_recorded(
    shared_data: Path, tmp_path: Path, peer: JsonRpcPeer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W-UNI-1, W-RND-2: live, a season opens at its first round with the universe read
    then; its rounds read the chosen feeds as recorded, so removing a chosen symbol from the
    registry file mid-season changes nothing until the next season."""
    first = datetime(2025, 9, 29, 15, tzinfo=UTC)  # a Monday's first round hour
    script_peer(peer, first - timedelta(minutes=1))
    monkeypatch.setenv("TEST_RPC_URL", peer.url)
    registry = write_registry(tmp_path / "feeds.toml", registry_text())
    config = WeightsConfig(
        season="L", start=first.date(), end=date(2025, 10, 27),
        agents=(WeightsAgent(name="equal", spec="baseline:equal_weight"),),
        market=shared_data / "us_equities_daily", feeds=registry, rpc_url_env="TEST_RPC_URL",
    )  # fmt: skip
    clock = ReplayClock(first)  # a clock the test moves: the driver runs its live path
    with open_store(f"sqlite:///{tmp_path / 'live.db'}") as store:
        driver = WeightsDriver(store, config, clock=clock)
        assert not driver.state.started  # it opens at its first round, not before
        assert not driver.played(first)
        opened = await driver.play(first)
        chosen = expected_universe()
        assert driver.state.universe is not None
        assert driver.state.universe["read_at"] == "2025-09-29T15:00:00.000000Z"
        assert list(driver.state.symbols) == chosen
        prices = next(e.payload["prices"] for e in opened if e.kind == EventKind.ROUND_STARTED)
        assert sorted(prices) == chosen  # type: ignore[call-overload]
        assert peer.calls["eth_call:totalSupply"] == len(SYMBOLS)  # once, at the start

        dropped = chosen[0]
        write_registry(registry, registry_text(tuple(s for s in SYMBOLS if s != dropped)))
        before = peer.calls["eth_call:latestRoundData"]
        clock.set(first + timedelta(hours=1))
        script_peer(peer, first + timedelta(minutes=59))
        later = await driver.play(first + timedelta(hours=1))
        prices = next(e.payload["prices"] for e in later if e.kind == EventKind.ROUND_STARTED)
        assert dropped in prices  # type: ignore[operator]
        assert peer.calls["eth_call:latestRoundData"] - before == 20  # the chosen feeds only
        assert peer.calls["eth_call:totalSupply"] == len(SYMBOLS)  # never read again
        await driver.aclose()
        assert verify(store).ok

    again = WeightsDriver(
        open_store(f"sqlite:///{tmp_path / 'live.db'}"), config, clock=ReplayClock(first)
    )  # a restart takes the season up from its record
    assert list(again.state.symbols) == chosen
    assert again.played(first + timedelta(hours=1))
    again.store.close()


def test_an_operator_season_from_feeds_holds_the_chains_pick(
    tmp_path: Path, peer: JsonRpcPeer
) -> None:
    """W-UNI-1, W-UNI-2: `weights create-season --feeds --rpc-url` opens the season with the
    registry's 20 largest valid tokens and records the universe beside SeasonStarted;
    --symbols still names them by hand; no node named is one sentence, exit 2."""
    now = START1 - timedelta(minutes=30)
    script_peer(peer, now - timedelta(minutes=10))
    feeds = write_registry(tmp_path / "feeds.toml", registry_text())
    db = f"sqlite:///{tmp_path / 'ops.db'}"
    runner = CliRunner()
    base = ["weights", "create-season", "--start", START1.date().isoformat(), "--feeds", str(feeds)]
    made = runner.invoke(
        app, [*base, "--rpc-url", peer.url, "--season", "OPS", "--db", db, "--now", now.isoformat()]
    )
    assert made.exit_code == 0, made.output
    events = _events(db, "weights/OPS")
    assert [e.kind for e in events] == [EventKind.SEASON_STARTED, UNIVERSE_CHOSEN]
    assert events[0].payload["symbols"] == expected_universe()
    assert events[1].payload["symbols"] == expected_universe()
    assert events[1].payload["season"] == "OPS"
    assert check_events(events) == []
    by_hand = runner.invoke(
        app, [*base, "--symbols", "AAPL,BA", "--season", "HAND", "--db", db,
              "--now", now.isoformat()],
    )  # fmt: skip
    assert by_hand.exit_code == 0, by_hand.output
    hand = _events(db, "weights/HAND")
    assert [e.kind for e in hand] == [EventKind.SEASON_STARTED]
    assert hand[0].payload["symbols"] == ["AAPL", "BA"]
    nowhere = _cli(*base, "--season", "X", "--db", db, cwd=tmp_path, rpc="")
    assert nowhere.returncode == 2, nowhere.stderr
    assert "--rpc-url" in nowhere.stderr
    assert "Traceback" not in nowhere.stderr
    with open_store(db) as store:
        assert verify(store).ok
