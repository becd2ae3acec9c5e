"""Board reads cost what changed: costly figures are computed once per log change, and kept bounded.

Under 100 concurrent readers (``bench/load.py``) the server's memory climbed
from 140 MiB to 600 MiB: every read of a scenario board or a weights agent page
ran the ST-2 bootstrap afresh (about 30 MiB and 19 MiB of transient arrays a
read, in as many worker threads as there were readers), and every thesis page
replayed its season. These tests pin what replaced that: the bootstrap runs
once per set of published runs (or per season log), concurrent readers of one
board share one computation, the kept boards are bounded, and the thesis reads
and the weights changelog are caught up from the last seq, not refolded.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tradeleague.accounts import Tier
from tradeleague.clock import WallClock
from tradeleague.events import Event
from tradeleague.events import thesis as tev
from tradeleague.events import weights as ev
from tradeleague.formats.scenario.luck import RunRecord, scenario_luck
from tradeleague.formats.weights import Division, WeightsPreset
from tradeleague.league.scenario import ScenarioService, publishing
from tradeleague.league.scenario.publishing import LUCKS_KEPT
from tradeleague.league.scenario.reads import leaderboard_payload
from tradeleague.league.thesis.reads import ThesisReads
from tradeleague.league.thesis.state import SeasonState as ThesisState
from tradeleague.league.weights import reads as weights_api
from tradeleague.league.weights.reads import WeightsReads
from tradeleague.league.weights.report import agent_season_luck
from tradeleague.league.weights.state import SeasonState
from tradeleague.store import Store, StoredEvent, open_store
from web.site_fill import (  # type: ignore[import-not-found]
    SEASON,
    THESIS_SEASON,
    fill_scenario,
    fill_thesis,
    fill_weights,
)

T0 = datetime(2026, 1, 5, tzinfo=UTC)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[ScenarioService]:
    found = ScenarioService(open_store(f"sqlite:///{tmp_path / 's.db'}"), WallClock())
    yield found
    found.store.close()


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[object]:
    """Replace ``module.name`` by a wrapper that notes each call's first argument."""
    calls: list[object] = []
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0] if args else None)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_board_s_verdicts_are_computed_once_per_set_of_published_runs(
    service: ScenarioService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight readers at once share one bootstrap; a new published run makes the next one."""
    scenario = fill_scenario(service)
    calls = _counting(monkeypatch, publishing, "scenario_luck")
    start = threading.Barrier(8)

    def read(_: int) -> dict[str, Any]:
        start.wait()
        return leaderboard_payload(service, scenario, "return")

    with ThreadPoolExecutor(8) as pool:
        boards = list(pool.map(read, range(8)))
    assert len(calls) == 1, "one computation for the eight concurrent readers"
    assert all(b == boards[0] for b in boards)
    assert leaderboard_payload(service, scenario, "sharpe")["entries"]
    assert len(calls) == 1, "another metric ranks the same runs: the same verdicts"
    # what is kept is what a fresh computation over the published runs gives
    found = service.scenario(scenario)
    records = [service.run_record(run)[0] for run, _, _ in service.published(scenario)]
    fresh = scenario_luck(scenario, records, found.bars, found.config)
    assert boards[0]["significance"] == fresh.to_payload()
    # a third run is published: the board has three rows, the verdicts are computed anew
    account = service.authenticate(service.create_key("late", Tier.PRO))
    run = str(service.create_run(account, scenario)["id"])
    while not service.step(account, run)["done"]:
        pass
    service.publish(account, run)
    board = leaderboard_payload(service, scenario, "return")
    assert len(calls) == 2
    assert len(board["entries"]) == 3
    assert board["significance"]["luckiest_of_n"]["agents"] == 3


def test_the_kept_boards_are_bounded_and_the_least_recently_read_goes_first(
    service: ScenarioService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LUCKS_KEPT boards are kept; one more evicts the board read longest ago."""
    scenario = fill_scenario(service)
    calls = _counting(monkeypatch, publishing, "scenario_luck")

    def board(n: int) -> list[RunRecord]:
        return [RunRecord(run_id=f"run-{n}", equity=(), trades=0)]

    for n in range(LUCKS_KEPT):
        service.board_luck(scenario, board(n))
    assert len(calls) == LUCKS_KEPT
    service.board_luck(scenario, board(0))  # read again: now the most recent
    assert len(calls) == LUCKS_KEPT
    service.board_luck(scenario, board(LUCKS_KEPT))  # one more: evicts board 1
    assert len(calls) == LUCKS_KEPT + 1
    service.board_luck(scenario, board(0))
    assert len(calls) == LUCKS_KEPT + 1, "board 0 was read recently: kept"
    service.board_luck(scenario, board(1))
    assert len(calls) == LUCKS_KEPT + 2, "board 1 was the least recently read: computed again"


def test_agent_pages_share_their_table_s_bootstrap(
    service: ScenarioService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every agent page of a division, read many times, runs the division's bootstrap once."""
    fill_weights(service)
    store = service.store
    reads = WeightsReads(lambda: contextlib.nullcontext(store))
    calls = _counting(monkeypatch, weights_api, "season_luck")
    state = SeasonState(ev.season_stream(SEASON), WeightsPreset())
    for stored in store.events(ev.season_stream(SEASON)):
        state.apply(stored.event)
    agents = sorted(state.agents)
    assert len(agents) >= 4
    for _ in range(3):
        for agent in agents:
            standing = reads.agent(SEASON, agent)["standing"]
            alone = agent_season_luck(state, agent)  # the agent's verdicts computed on their own
            assert standing["vs_cash"] == alone.vs_cash.to_payload()
            assert standing["vs_buy_and_hold"] == alone.vs_buy_and_hold.to_payload()
    divisions = {state.agents[a].division for a in agents}
    assert len(calls) == len(divisions), "one bootstrap per division, whatever the reads"
    for division in divisions:
        reads.table(SEASON, division.value)
    assert len(calls) == len(divisions), "the tables reuse it"
    assert Division.OPEN in divisions


class _Recorded:
    """A store whose ``events`` reads are noted as ``(stream, after_seq)``."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.reads: list[tuple[str | None, int]] = []

    def events(self, stream: str | None = None, after_seq: int = 0) -> Iterator[StoredEvent]:
        self.reads.append((stream, after_seq))
        return self.store.events(stream, after_seq)

    def head(self) -> Any:
        return self.store.head()


def test_thesis_reads_catch_up_from_the_last_seq_instead_of_replaying(
    service: ScenarioService,
) -> None:
    """The second read of a board, an agent or the index asks only for what is newer."""
    fill_thesis(service)
    store = service.store
    recorded = _Recorded(store)
    reads = ThesisReads(recorded)  # type: ignore[arg-type]
    fresh = ThesisReads(store)
    first = reads.board(THESIS_SEASON)
    assert first == fresh.board(THESIS_SEASON)
    name = str(first["rows"][0]["name"])
    assert reads.agent(THESIS_SEASON, name) == fresh.agent(THESIS_SEASON, name)
    assert reads.index() == fresh.index()
    head = store.head().seq
    recorded.reads.clear()
    for _ in range(3):
        reads.board(THESIS_SEASON)
        reads.agent(THESIS_SEASON, name)
        reads.index()
    assert recorded.reads, "each read catches up with the log"
    assert {after for _, after in recorded.reads} == {head}, "nothing is read twice"
    # the kept fold still equals a whole fold of the season's stream
    stream = tev.season_stream(THESIS_SEASON)
    state = ThesisState.from_events((s.event for s in store.events(stream)), fresh.preset)
    assert reads.board(THESIS_SEASON)["cycles"] == len(state.cycles)


def test_the_weights_changelog_is_read_once_per_log_head(
    service: ScenarioService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The changelog, read from every season's events, is rebuilt only when the log grew."""
    fill_weights(service)
    store = service.store
    reads = WeightsReads(lambda: contextlib.nullcontext(store))
    calls = _counting(monkeypatch, weights_api, "changelog_entries")
    first = reads.changelog()
    assert first["changes"]
    assert reads.changelog() == reads.changelog() == first
    assert len(calls) == 1
    store.append([Event("elsewhere", "Noted", {"n": 1}, T0)])
    assert reads.changelog() == first
    assert len(calls) == 2, "the log grew: read again"
    assert reads.changelog() == first
    assert len(calls) == 2
