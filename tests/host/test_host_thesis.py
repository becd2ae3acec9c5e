"""The thesis league in the host: a replay-clock host plays the season as ``replay thesis`` does.

A week's season over the shared folders (baselines, a scripted model whose
first answer earns the correction round and whose positions the monitor
closes, its mirror joining at cycle 3), hosted in two runs (a restart in the
middle): the host writes the replay's events, id for id, and ``tradeleague
report`` equals the replay's REPORT.json byte for byte.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.host.config import parse_league
from tradeleague.league.thesis.data import replay_sources
from tradeleague.league.thesis.driver import thesis_slots
from tradeleague.store import open_store, verify

pytestmark = pytest.mark.shared_data

START, END = "2025-03-03", "2025-03-10"


def _answer(*decisions: dict[str, object]) -> str:
    return json.dumps(
        {
            "reasoning": "The move is clear. The level bounds the risk.",
            "market_context": {"overall_sentiment": "neutral", "key_factors": ["trend"]},
            "decisions": list(decisions),
        }
    )


def _long(symbol: str, level: str) -> dict[str, object]:
    return {
        "action": "open_long", "symbol": symbol, "percent_of_equity": 20, "confidence": 0.9,
        "invalidation_price": level, "thesis": f"{symbol} recovers.", "invalidation": "It breaks.",
    }  # fmt: skip


def _script(path: Path) -> Path:
    lines = [
        _answer(_long("ETH", "2250"), _long("NOPE", "1")),  # one rejection: the correction round
        _answer(),  # the correction
        *[_answer()] * 5,
        _answer(_long("SOL", "129.5")),  # broken at 20:00 on the last day: the season's close
    ]
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in lines), encoding="utf-8")
    return path


def _league(path: Path, data: Path, script: Path, db: str) -> Path:
    path.write_text(
        f"""
[league]
db = "{db}"

[thesis]
season = "T1"
start = {START}
end = {END}
crypto = "{data / "crypto_4h"}"
stocks = "{data / "us_equities_daily"}"

[[thesis.agents]]
name = "cash"
spec = "baseline:cash"

[[thesis.agents]]
name = "hold"
spec = "baseline:buy-and-hold"

[[thesis.agents]]
name = "m"
spec = "scripted:{script}"

[[thesis.agents]]
name = "mirror"
spec = "inverse:m"
join = 3
""",
        encoding="utf-8",
    )
    return path


def _events(db: str) -> list[tuple[str, str, str, str]]:
    with open_store(db) as store:
        return [
            (s.event.id, s.event.kind, json.dumps(s.event.payload, sort_keys=True),
             s.event.occurred_at.isoformat())
            for s in store.events(tev.season_stream("T1"))
        ]  # fmt: skip


def test_host_thesis_season_is_the_replay_t_sea_1(shared_data: Path, tmp_path: Path) -> None:
    """T-SEA-1, T-MON-1, T-CYC-9: the hosted season's events and report are the replay's."""
    script = _script(tmp_path / "m.jsonl")
    db = f"sqlite:///{tmp_path / 'host.db'}"
    league = _league(tmp_path / "league.toml", shared_data, script, db)
    runner = CliRunner()
    run = ["run", "--config", str(league), "--clock", "replay"]
    first = runner.invoke(app, [*run, "--from", f"{START}T00:00Z", "--to", "2025-03-06T00:00Z"])
    assert first.exit_code == 0, first.output
    assert "Played 3 rounds." in first.output
    rest = runner.invoke(app, [*run, "--from", f"{START}T00:00Z", "--to", f"{END}T00:00Z"])
    assert rest.exit_code == 0, rest.output
    assert "Played 5 rounds." in rest.output  # four cycles and the close; none twice

    replay_db = f"sqlite:///{tmp_path / 'replay.db'}"
    replayed = tmp_path / "REPORT.json"
    result = runner.invoke(app, [
        "replay", "thesis", "--crypto", str(shared_data / "crypto_4h"),
        "--stocks", str(shared_data / "us_equities_daily"), "--start", START, "--end", END,
        "--agent", "cash=baseline:cash", "--agent", "hold=baseline:buy-and-hold",
        "--agent", f"m=scripted:{script}", "--agent", "mirror=inverse:m", "--join", "mirror=3",
        "--season", "T1", "--db", replay_db, "--out", str(replayed),
    ], terminal_width=200)  # fmt: skip
    assert result.exit_code == 0, result.output

    hosted_events = _events(db)
    assert hosted_events == _events(replay_db)  # ids, kinds, payloads and times
    kinds = [k for _, k, _, _ in hosted_events]
    assert kinds.count(EventKind.ROUND_STARTED) == 7
    assert kinds[-1] == EventKind.SEASON_ENDED
    closes = [json.loads(p) for _, k, p, _ in hosted_events if k == tev.POSITION_INVALIDATED]
    assert [(c["agent"], c["symbol"]) for c in closes][-1] == ("m", "SOL")  # in the close
    assert ("m", "ETH") in {(c["agent"], c["symbol"]) for c in closes}
    attempts = [json.loads(p) for _, k, p, _ in hosted_events if k == tev.ATTEMPT_JUDGED]
    assert [a["attempt"] for a in attempts if a["agent"] == "m"][:2] == [1, 2]
    with open_store(db) as store:
        assert verify(store).ok

    hosted = tmp_path / "HOSTED.json"
    report = runner.invoke(app, ["report", "--db", db, "--season", "T1", "--out", str(hosted)])
    assert report.exit_code == 0, report.output
    assert hosted.read_bytes() == replayed.read_bytes()
    body = json.loads(hosted.read_text(encoding="utf-8"))
    assert {a["name"] for a in body["agents"]} == {"cash", "hold", "m", "mirror"}

    status = runner.invoke(app, ["status", "--db", db, "--json"])
    assert status.exit_code == 0, status.output
    (entry,) = json.loads(status.stdout)["formats"]
    assert entry["format"] == "thesis"
    assert entry["season"] == "T1"
    assert entry["last_slot"] == "2025-03-09T23:45:00.000000Z"  # the close
    assert entry["next_slot"] is None
    assert entry["missed"] == []
    assert entry["feeds"]["kind"] == "frozen"


def test_thesis_schedule_names_the_cycles_and_the_close() -> None:
    """T-SEA-1, T-MON-1: a cycle a day at 16:00 UTC, then the close at the end's last check."""
    day = datetime(2025, 3, 3, tzinfo=UTC)
    got = thesis_slots(
        day, datetime(2025, 4, 1, tzinfo=UTC), day.date(), date(2025, 3, 6),
        ThesisPreset(),
    )  # fmt: skip
    assert [s.isoformat() for s in got] == [
        "2025-03-03T16:00:00+00:00", "2025-03-04T16:00:00+00:00", "2025-03-05T16:00:00+00:00",
        "2025-03-05T23:45:00+00:00",
    ]  # fmt: skip
    inside = thesis_slots(
        datetime(2025, 3, 4, 16, tzinfo=UTC), datetime(2025, 3, 5, 16, tzinfo=UTC),
        day.date(), date(2025, 3, 6), ThesisPreset(),
    )  # fmt: skip
    assert [s.isoformat() for s in inside] == ["2025-03-04T16:00:00+00:00"]  # [from, to)


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ('season = "T1"\nstart = 2025-03-03\nend = 2025-04-30\n', "end is 1 to 28 days"),
        ('season = "T 1"\nstart = 2025-03-03\nend = 2025-03-05\n', "season: letters"),
        ('season = "T1"\nstart = 2025-03-03\nend = 2025-03-05\nyahoo_base = "ftp://x"\n',
         "yahoo_base is an http(s) URL"),
        ('season = "T1"\nstart = 2025-03-03\nend = 2025-03-05\nbogus = 1\n',
         "unknown key 'bogus' in [thesis]"),
        ('season = "T1"\nstart = 2025-03-03\nend = 2025-03-05\ncrypto = "nowhere"\n',
         "crypto 'nowhere' does not exist"),
    ],
)  # fmt: skip
def test_thesis_section_mistakes_are_named_with_their_line(
    tmp_path: Path, table: str, needle: str
) -> None:
    """Every mistake in [thesis] is named with its line before any database is touched."""
    text = f'[thesis]\n{table}\n[[thesis.agents]]\nname = "a"\nspec = "baseline:cash"\njoin = 40\n'
    with pytest.raises(ConfigError) as caught:
        parse_league(text, tmp_path / "league.toml")
    message = str(caught.value)
    assert needle in message
    assert "join is the cycle an agent enters" in message
    assert "line " in message


def test_replay_sources_name_the_folder_not_the_way_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """T-SEA-1: a replay given a relative or linked folder records what a league file records.

    The host resolves its league file's folders; the replay must record the same
    text, or a hosted season and its replay differ when ../shared is a link.
    """
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    monkeypatch.chdir(tmp_path)
    sources = replay_sources(Path("link"), Path("real"), Path("../" + tmp_path.name + "/link"))
    resolved = str(real.resolve())
    assert sources == {"crypto": resolved, "stocks": resolved, "stocks_hourly": resolved}
