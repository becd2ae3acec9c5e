"""The league file: checked whole before any database, every mistake named with its line."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tradeleague.agents.recorded import call_record_of
from tradeleague.cli import app
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind
from tradeleague.formats.direction import DirectionPreset
from tradeleague.formats.weights import Division, WeightsPreset
from tradeleague.host.config import load_league, parse_league
from tradeleague.league.direction.driver import direction_slots
from tradeleague.league.weights.config import WeightsConfig
from tradeleague.league.weights.driver import WeightsLeague, weights_slots
from tradeleague.market.calendars import NYSE, get_calendar
from tradeleague.money import micros_to_str
from tradeleague.store import open_store
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_host_config_names_every_mistake_with_its_line(tmp_path: Path) -> None:
    """Unknown keys, a bad day and a missing roster are all named, each with its line."""
    text = """[league]
db = "sqlite:///x.db"
colour = "blue"

[weights]
season = "W1"
start = "2025-13-01"
end = 2025-09-03
agnets = []

[direction]
payout = 5000
"""
    with pytest.raises(ConfigError) as caught:
        parse_league(text, tmp_path / "league.toml")
    message = str(caught.value)
    assert "line 3: unknown key 'colour' in [league]" in message
    assert "line 7: start must be a day" in message
    assert "line 9: unknown key 'agnets' in [weights]" in message
    assert "line 12: payout is a whole percent" in message
    assert "needs at least one [[weights.agents]]" in message
    assert "needs at least one [[direction.agents]]" in message


def test_host_config_names_an_unknown_subtable_at_its_own_header(tmp_path: Path) -> None:
    """A mistaken table inside a known one ([direction.extra]) is named at its own line."""
    text = (
        '[league]\ndb = "sqlite:///x.db"\n\n[direction]\n\n[[direction.agents]]\n'
        'name = "up"\nspec = "baseline:up"\n\n[direction.extra]\nthing = 1\n'
    )
    with pytest.raises(ConfigError) as caught:
        parse_league(text, tmp_path / "league.toml")
    assert "line 10: unknown key 'extra' in [direction]" in str(caught.value)


def test_host_config_resolves_paths_and_the_sqlite_db_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "bars").mkdir()
    league = tmp_path / "league.toml"
    league.write_text(
        '[league]\ndb = "sqlite:///here.db"\n[weights]\nseason = "S"\nstart = 2025-09-02\n'
        'end = 2025-09-03\nmarket = "bars"\n[[weights.agents]]\nname = "a"\n'
        'spec = "baseline:cash"\ndivision = "pro"\n',
        encoding="utf-8",
    )
    config = load_league(league)
    assert config.db == f"sqlite:///{tmp_path.resolve() / 'here.db'}"
    weights = config.of(WeightsConfig)
    assert weights is not None
    assert weights.market == (tmp_path / "bars").resolve()
    assert weights.start == date(2025, 9, 2)
    assert weights.agents[0].division is Division.PRO


def test_host_config_every_example_parses() -> None:
    """Each league file in examples/ is valid as shipped (sweep.toml is a sweep file)."""
    files = sorted(p for p in EXAMPLES.glob("*.toml") if p.name != "sweep.toml")
    assert files
    for path in files:
        config = load_league(path)
        assert config.formats
    # the weights example: Open and Pro over hourly bars, so 15..19 UTC has bars to play
    weights = load_league(EXAMPLES / "weights.toml").of(WeightsConfig)
    assert weights is not None
    assert weights.market is not None
    assert {a.division for a in weights.agents} == {Division.OPEN, Division.PRO}
    assert weights.market.name == "us_equities_1h"


def test_host_run_checks_the_file_before_any_database(tmp_path: Path) -> None:
    """A bad league file stops `run` with exit 2 and creates no database."""
    league = tmp_path / "league.toml"
    db = tmp_path / "never.db"
    league.write_text(f'[league]\ndb = "sqlite:///{db}"\nextra = 1\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["run", "--config", str(league)])
    assert result.exit_code != 0
    assert isinstance(result.exception, ConfigError)
    assert "line 3" in str(result.exception)
    assert not db.exists()


def test_host_schedule_weights_hours_on_trading_days_only() -> None:
    """W-RND-1: 15..19 UTC on NYSE trading days; none on a weekend or a holiday."""
    calendar = get_calendar(NYSE)
    start = datetime(2025, 8, 29, tzinfo=UTC)  # Friday; Sept 1 is Labor Day
    end = datetime(2025, 9, 3, tzinfo=UTC)
    slots = weights_slots(start, end, calendar.is_trading_day, WeightsPreset())
    assert [s.hour for s in slots] == [15, 16, 17, 18, 19] * 2
    assert sorted({s.date() for s in slots}) == [date(2025, 8, 29), date(2025, 9, 2)]


def test_host_schedule_direction_every_five_minutes_end_exclusive() -> None:
    """D-RND-1: 288 opens a day; --to is exclusive."""
    start = datetime(2025, 9, 2, tzinfo=UTC)
    slots = direction_slots(start, datetime(2025, 9, 3, tzinfo=UTC), DirectionPreset())
    assert len(slots) == 288
    assert slots[0] == start
    assert slots[-1] == datetime(2025, 9, 2, 23, 55, tzinfo=UTC)


def test_host_weights_seasons_roll_over_every_28_days_from_a_monday(tmp_path: Path) -> None:
    """W-SEA-1: rolling seasons last 28 days from a Monday; each slot falls in one season."""
    text = (
        '[weights]\nseason = "W"\nstart = 2025-09-01\nroll = true\n'
        '[[weights.agents]]\nname = "a"\nspec = "baseline:cash"\n'
    )
    weights = parse_league(text, tmp_path / "league.toml").of(WeightsConfig)
    assert weights is not None
    assert weights.end is None
    with open_store(f"sqlite:///{tmp_path / 'roll.db'}") as store:
        league = WeightsLeague(store, weights, clock=None)
        start = datetime(2025, 9, 26, tzinfo=UTC)
        slots = league.slots(start, datetime(2025, 10, 1, tzinfo=UTC))
        seasons = {league.season_of(s) for s in slots}
    assert seasons == {"W-2025-09-01", "W-2025-09-29"}
    assert league.season_of(datetime(2025, 9, 28, 15, tzinfo=UTC)) == "W-2025-09-01"
    assert league.season_of(datetime(2025, 9, 29, 15, tzinfo=UTC)) == "W-2025-09-29"
    with pytest.raises(ConfigError, match="line 3: rolling seasons start on a Monday"):
        parse_league(text.replace("2025-09-01", "2025-09-02"), tmp_path / "league.toml")


def test_host_config_feeds_and_a_fixed_list_do_not_mix(tmp_path: Path) -> None:
    """W-UNI-1: with a feed registry each season's symbols are read from the chain, so a
    symbols list beside it is a mistake, and a registry that does not parse is named."""
    (tmp_path / "bars").mkdir()
    (tmp_path / "feeds.toml").write_text("feeds = 3\n", encoding="utf-8")
    text = """[weights]
season = "S"
start = 2025-09-01
end = 2025-09-29
market = "bars"
feeds = "feeds.toml"
symbols = ["AAPL"]
[[weights.agents]]
name = "a"
spec = "baseline:cash"
"""
    with pytest.raises(ConfigError) as caught:
        parse_league(text, tmp_path / "league.toml")
    message = str(caught.value)
    assert "line 6: feeds: 'feeds' must map each symbol to its feed" in message
    assert "line 7: give symbols or feeds, not both" in message


def test_host_db_env_unset_is_named_and_no_default_store_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that reads its database URL from a variable never falls back to ./tradeleague.db
    when the variable is unset: `run`, `status` and `serve` name the variable; `--db` still
    wins."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRADELEAGUE_DB", raising=False)
    monkeypatch.delenv("LEAGUE_PG", raising=False)
    league = tmp_path / "league.toml"
    arena = '[direction]\n[[direction.agents]]\nname = "up"\nspec = "baseline:up"\n'
    league.write_text('[league]\ndb_env = "LEAGUE_PG"\n' + arena, encoding="utf-8")
    runner = CliRunner()
    for command in ("run", "status", "serve"):
        args = [command, "--config", str(league)]
        result = runner.invoke(app, args)
        assert result.exit_code != 0, args
        assert isinstance(result.exception, ConfigError), args
        assert "set $LEAGUE_PG to the database URL" in str(result.exception)
    assert list(tmp_path.iterdir()) == [league]  # no store was made anywhere

    url = f"sqlite:///{tmp_path / 'given.db'}"
    monkeypatch.setenv("LEAGUE_PG", url)
    assert load_league(league).store_url() == url
    assert load_league(league).store_url("sqlite:///other.db") == "sqlite:///other.db"
    both = '[league]\ndb = "sqlite:///a.db"\ndb_env = "LEAGUE_PG"\n' + arena
    league.write_text(both, encoding="utf-8")
    with pytest.raises(ConfigError, match="line 3: give db or db_env, not both"):
        load_league(league)


def test_host_systemd_unit_runs_the_host_and_lets_a_round_in_flight_finish() -> None:
    """The sample unit starts `tradeleague run --config`, stops it with SIGTERM, and waits
    longer than a direction round lasts before it would kill the host mid-round."""
    import configparser
    import shlex

    unit = configparser.ConfigParser(strict=True, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read_string((EXAMPLES / "tradeleague.service").read_text(encoding="utf-8"))
    assert set(unit.sections()) == {"Unit", "Service", "Install"}
    service = unit["Service"]
    command = shlex.split(service["ExecStart"])
    assert Path(command[0]).name == "tradeleague"
    assert command[1:3] == ["run", "--config"]
    assert command[3].endswith(".toml")
    assert service["KillSignal"] == "SIGTERM"
    assert service["Restart"] in {"always", "on-failure"}
    preset = DirectionPreset()
    assert int(service["TimeoutStopSec"]) > (preset.round_length + preset.window).total_seconds()
    assert unit["Install"]["WantedBy"] == "multi-user.target"


PRICES = """\
pricing_version = "2026-12-01"
[models."gpt-4o-mini"]
input_per_million = 0.15
output_per_million = 0.60
"""


def test_host_prices_in_the_league_file_price_the_hosted_report(
    shared_data: Path, tmp_path: Path
) -> None:
    """C-5: [league] prices names the table (beside the file); the host and `report` price calls.

    A fake OpenAI-protocol server reports 1,234 + 56 tokens a call: 219 micro-dollars
    at 0.15 / 0.60 USD per million, rounded up; the baseline makes no call and costs 0.
    """
    (tmp_path / "prices.toml").write_text(PRICES, encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'host.db'}"
    answer = '{"direction": "up", "rationale": "Up."}'
    with FakeProvider() as fake:
        fake.script_model(
            "gpt-4o-mini", Behaviour(text=answer, prompt_tokens=1_234, completion_tokens=56)
        )
        league = tmp_path / "league.toml"
        league.write_text(
            f'[league]\ndb = "{db}"\nprices = "prices.toml"\n\n'
            f'[direction]\nmarket = "{shared_data / "crypto_1m"}"\n\n'
            '[[direction.agents]]\nname = "up"\nspec = "baseline:up"\n\n'
            f'[[direction.agents]]\nname = "mini"\nspec = "openai:gpt-4o-mini@{fake.url}"\n',
            encoding="utf-8",
        )
        config = load_league(league)
        assert config.prices is not None
        assert config.prices.version == "2026-12-01"
        span = ["--from", "2025-09-02T06:00Z", "--to", "2025-09-02T06:30Z"]
        played = CliRunner().invoke(app, ["run", "--config", str(league), "--clock", "replay",
                                          *span])  # fmt: skip
        assert played.exit_code == 0, played.output
    out = tmp_path / "REPORT.json"
    done = CliRunner().invoke(
        app, ["report", "--config", str(league), "--season", "S1", "--out", str(out)]
    )
    assert done.exit_code == 0, done.output
    costs = json.loads(out.read_text(encoding="utf-8"))["costs"]
    assert (costs["pricing_version"], costs["priced"]) == ("2026-12-01", True)
    mini, up = costs["agents"]["mini"], costs["agents"]["up"]
    assert mini["calls"] == 6
    assert mini["cost_usd"] == micros_to_str(6 * 219)
    assert (up["cost_usd"], up["basis"]) == ("0.000000", "no_model_calls")
    # C-5: the host's gateway priced each call as it recorded it
    with open_store(db, upgrade=False) as store:
        recorded = [
            call_record_of(e.event.payload)
            for e in store.events("direction")
            if e.event.kind == EventKind.MODEL_CALLED
        ]
    assert [r.cost_micros for r in recorded] == [219] * 6


def test_host_prices_that_are_missing_or_wrong_are_named_with_their_line(tmp_path: Path) -> None:
    """The price table comes from outside: a missing file or a bad table is one noted mistake."""
    base = (
        '[league]\ndb = "sqlite:///x.db"\nprices = "{name}"\n\n[direction]\n\n'
        '[[direction.agents]]\nname = "up"\nspec = "baseline:up"\n'
    )
    with pytest.raises(ConfigError, match=r"line 3: prices 'nope\.toml' does not exist"):
        parse_league(base.format(name="nope.toml"), tmp_path / "league.toml")
    (tmp_path / "bad.toml").write_text('pricing_version = "v"\n[models.m]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"line 3: .*input_per_million and output_per_million"):
        parse_league(base.format(name="bad.toml"), tmp_path / "league.toml")
