"""Thesis seasons roll over: with ``roll = true`` the host opens the next 28-day season (T-SEA-1).

A league from 2025-03-03 to 2025-04-03 over the shared folders is two seasons:
``T-2025-03-03`` (28 days) and ``T-2025-03-31`` (three days, cut at the league's end).
A replay-clock host plays it in four runs (restarts mid-season, between the first
season's close and the second's first cycle, and mid-second season): every day's cycle
is played once, in the season holding it, with no gap; the first season's report stays
what it was when it ended; the second season is the replay of its days with the same
roster (a ``join`` holds in the first season only); verify passes.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.clock import WallClock
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind
from tradeleague.events import thesis as tev
from tradeleague.events.host import HOST_DOWN
from tradeleague.host.config import load_league, parse_league
from tradeleague.host.leaguefile import HostAgent
from tradeleague.host.metrics import Metrics
from tradeleague.host.missed import missed_slots
from tradeleague.host.reads import status
from tradeleague.host.runner import record_missed
from tradeleague.host.seasons import season_window
from tradeleague.league.thesis.config import ThesisConfig
from tradeleague.league.thesis.driver import ThesisLeague
from tradeleague.store import open_store, verify

FIRST, SECOND = "T-2025-03-03", "T-2025-03-31"


def _league(path: Path, data: Path, db: str) -> Path:
    path.write_text(
        f"""
[league]
db = "{db}"

[thesis]
season = "T"
start = 2025-03-03
end = 2025-04-03
roll = true
crypto = "{data / "crypto_4h"}"
stocks = "{data / "us_equities_daily"}"

[[thesis.agents]]
name = "cash"
spec = "baseline:cash"

[[thesis.agents]]
name = "hold"
spec = "baseline:buy-and-hold"

[[thesis.agents]]
name = "mirror"
spec = "inverse:hold"
join = 2
""",
        encoding="utf-8",
    )
    return path


def _events(db: str, season: str) -> list[tuple[str, str, str, str]]:
    with open_store(db) as store:
        return [
            (s.event.id, s.event.kind, json.dumps(s.event.payload, sort_keys=True),
             s.event.occurred_at.isoformat())
            for s in store.events(tev.season_stream(season))
        ]  # fmt: skip


def _report(runner: CliRunner, db: str, season: str, out: Path) -> bytes:
    result = runner.invoke(app, ["report", "--db", db, "--season", season, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out.read_bytes()


@pytest.mark.shared_data
def test_host_thesis_seasons_roll_over_t_sea_1(shared_data: Path, tmp_path: Path) -> None:
    """T-SEA-1: two seasons back to back, each cycle once, the first's report kept, resumed."""
    db = f"sqlite:///{tmp_path / 'host.db'}"
    league = _league(tmp_path / "league.toml", shared_data, db)
    runner = CliRunner()
    run = ["run", "--config", str(league), "--clock", "replay", "--from", "2025-03-03T00:00Z"]
    played = 0
    kept = b""
    for to, count in (
        ("2025-03-17T00:00Z", 14),  # half the first season
        ("2025-03-31T12:00Z", 15),  # the rest and its close; the second not yet open
        ("2025-04-01T20:00Z", 2),  # the second season's first two cycles
        ("2025-04-04T00:00Z", 2),  # its last cycle and its close
    ):
        result = runner.invoke(app, [*run, "--to", to])
        assert result.exit_code == 0, result.output
        assert f"Played {count} rounds." in result.output, to
        played += count
        if to.startswith("2025-03-31"):
            with open_store(db) as store:
                assert not list(store.events(tev.season_stream(SECOND)))  # opened at its slot
                now = datetime(2025, 3, 31, 12, tzinfo=UTC)
                shown = status(store, load_league(league), now)["formats"]
            by_season = {f["season"]: f for f in shown}
            assert sorted(by_season) == [FIRST, SECOND]  # the current season, not yet opened
            assert by_season[FIRST]["last_slot"] == "2025-03-30T23:45:00.000000Z"  # its close
            assert by_season[FIRST]["next_slot"] is None
            assert by_season[SECOND]["last_slot"] is None
            assert by_season[SECOND]["next_slot"] == "2025-03-31T16:00:00.000000Z"
            kept = _report(runner, db, FIRST, tmp_path / "first_at_end.json")
    assert played == 28 + 1 + 3 + 1

    # every day's cycle once, in the season holding it, none missing, none twice
    first, second = _events(db, FIRST), _events(db, SECOND)
    cycles = [t for _, k, _, t in first + second if k == EventKind.ROUND_STARTED]
    days = [datetime(2025, 3, 3, 16, tzinfo=UTC) + timedelta(days=i) for i in range(31)]
    assert cycles == [d.isoformat() for d in days]
    assert [t for _, k, _, t in first if k == EventKind.ROUND_STARTED][-1].startswith(
        "2025-03-30T16"
    )
    for events, begin, end in ((first, "2025-03-03", "2025-03-31"), (second, "2025-03-31", "")):
        opening = json.loads(events[0][2])
        assert events[0][1] == EventKind.SEASON_STARTED
        assert opening["start"].startswith(begin)
        assert end == "" or opening["end"].startswith(end)
        assert events[-1][1] == EventKind.SEASON_ENDED
    assert json.loads(second[0][2])["end"].startswith("2025-04-03")  # cut at the league's end

    def entered(events: list[tuple[str, str, str, str]]) -> dict[str, int]:
        payloads = [json.loads(p) for _, k, p, _ in events if k == tev.AGENT_ENTERED]
        return {e["agent"]: e["cycle"] for e in payloads}

    assert entered(first) == {"cash": 0, "hold": 0, "mirror": 2}  # the join, first season only
    assert entered(second) == {"cash": 0, "hold": 0, "mirror": 0}

    with open_store(db) as store:
        assert verify(store).ok
    assert _report(runner, db, FIRST, tmp_path / "first_later.json") == kept

    # the second season is the replay of its days with the whole roster from its first cycle
    replay_db = f"sqlite:///{tmp_path / 'replay.db'}"
    result = runner.invoke(app, [
        "replay", "thesis", "--crypto", str(shared_data / "crypto_4h"),
        "--stocks", str(shared_data / "us_equities_daily"), "--start", "2025-03-31",
        "--end", "2025-04-03", "--agent", "cash=baseline:cash",
        "--agent", "hold=baseline:buy-and-hold", "--agent", "mirror=inverse:hold",
        "--season", SECOND, "--db", replay_db, "--out", str(tmp_path / "REPLAY.json"),
    ], terminal_width=200)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert second == _events(replay_db, SECOND)
    hosted = _report(runner, db, SECOND, tmp_path / "second.json")
    assert hosted == (tmp_path / "REPLAY.json").read_bytes()

    shown = json.loads(runner.invoke(app, ["status", "--db", db, "--json"]).stdout)["formats"]
    assert [f["season"] for f in shown] == [FIRST, SECOND]


def test_thesis_season_windows_follow_from_the_day_alone() -> None:
    """T-SEA-1: a rolling season is 28 days from the league's start, named by its first day."""
    start = date(2025, 3, 3)
    assert season_window("T", start, None, True, date(2025, 3, 30)) == (
        FIRST, start, date(2025, 3, 31)
    )  # fmt: skip
    assert season_window("T", start, None, True, date(2025, 3, 31)) == (
        SECOND, date(2025, 3, 31), date(2025, 4, 28)
    )  # fmt: skip
    assert season_window("T", start, date(2025, 4, 3), True, date(2025, 4, 3)) is None
    assert season_window("T", start, None, True, date(2025, 3, 2)) is None
    assert season_window("T", start, date(2025, 3, 6), False, date(2025, 3, 5)) == (
        "T", start, date(2025, 3, 6)
    )  # fmt: skip


def test_live_thesis_host_down_through_a_season_opens_none(tmp_path: Path) -> None:
    """A live host down across a season end records each season's slots missed, opening none."""
    config = ThesisConfig(
        season="T", start=date(2025, 3, 3), end=None, roll=True,
        agents=(HostAgent(name="cash", spec="baseline:cash"),),
    )  # fmt: skip
    with open_store(f"sqlite:///{tmp_path / 'live.db'}") as store:
        league = ThesisLeague(store, config, clock=WallClock())
        since = datetime(2025, 3, 3, tzinfo=UTC)
        now = datetime(2025, 4, 2, tzinfo=UTC)
        assert record_missed(store, league, since, now, Metrics()) == 28 + 1 + 2
        missed = missed_slots(store, "thesis")
        assert missed["2025-03-30T23:45:00.000000Z"] == (FIRST, HOST_DOWN)  # the close
        assert missed["2025-04-01T16:00:00.000000Z"] == (SECOND, HOST_DOWN)
        assert not list(store.events(tev.season_stream(FIRST)))
        assert not list(store.events(tev.season_stream(SECOND)))


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ('roll = "yes"\nend = 2025-03-20\n', "line 5: roll is true or false"),
        ("roll = true\nend = 2025-03-01\n", "line 6: end must be after start"),
        ("end = 2025-04-30\n", "line 5: end is 1 to 28 days after start"),
        ("roll = false\n", "line 1: end must be a day"),
    ],
)
def test_thesis_roll_mistakes_are_named_with_their_line(
    tmp_path: Path, table: str, needle: str
) -> None:
    """``roll`` is checked with the rest of [thesis]; a single season still needs its end."""
    text = f'[thesis]\nseason = "T"\nstart = 2025-03-03\n\n{table}\n'
    text += '[[thesis.agents]]\nname = "a"\nspec = "baseline:cash"\n'
    with pytest.raises(ConfigError) as caught:
        parse_league(text, tmp_path / "league.toml")
    assert needle in str(caught.value)


def test_thesis_roll_needs_no_end(tmp_path: Path) -> None:
    """With ``roll = true`` the league goes on season after season when no end is given."""
    text = '[thesis]\nseason = "T"\nstart = 2025-03-05\nroll = true\n'
    text += '[[thesis.agents]]\nname = "a"\nspec = "baseline:cash"\njoin = 3\n'
    thesis = parse_league(text, tmp_path / "league.toml").of(ThesisConfig)
    assert thesis is not None
    assert (thesis.roll, thesis.end, thesis.joins) == (True, None, (("a", 3),))


def test_thesis_example_documents_roll(tmp_path: Path) -> None:
    """The example's commented ``roll = true`` is a key the league file takes, as written."""
    example = Path(__file__).resolve().parents[2] / "examples" / "thesis.toml"
    text = example.read_text(encoding="utf-8")
    assert "\n# roll = true" in text
    rolled = text.replace("\n# roll = true", "\nroll = true")
    thesis = parse_league(rolled, example).of(ThesisConfig)
    assert thesis is not None
    assert thesis.roll
