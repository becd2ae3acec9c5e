"""The check before a host's first slot, and ``tradeleague agents check`` (issue 25 item 3).

A league file's model agents are asked their format's first round once, built from
the file's frozen bars; a dead provider, a wrong key and a prompt larger than the
model's context each get one line with the cause and the fix, and the host exits 3
before any database is opened. ``--no-check`` plays regardless.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

from host_helpers import weights_league  # type: ignore[import-not-found]
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.events import EventKind
from tradeleague.store import open_store
from tradeleague.terminal.exits import EXIT_NO_DECISIONS
from tradeleague.testing.fake_provider import FakeProvider

ANSWER = '{"targets": {}, "reason": "Hold cash."}'
SPAN = ["--from", "2025-09-02T00:00Z", "--to", "2025-09-03T00:00Z"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _league(tmp_path: Path, data: Path, *agents: tuple[str, str]) -> Path:
    roster = [("equal", "baseline:equal_weight", "open")]
    roster += [(name, spec, "pro") for name, spec in agents]
    path = tmp_path / "league.toml"
    db = f"sqlite:///{tmp_path / 'host.db'}"
    path.write_text(weights_league(data, db, roster), encoding="utf-8")
    return path


def test_host_start_and_agents_check_stop_bad_agents_before_any_slot(
    shared_data: Path, tmp_path: Path
) -> None:
    """Issue 25: exit 3 in under 5 s, one line per cause, no database and so no round."""
    with (
        FakeProvider(require_key="the-right-key") as keyed,
        FakeProvider(context=600) as small,
    ):
        keyed.script_model("m", ANSWER)
        small.script_model("m", ANSWER)
        league = _league(
            tmp_path, shared_data,
            ("down", f"openai:m@http://127.0.0.1:{_closed_port()}/v1"),
            ("key", f"openai:m@{keyed.url},key_env=OPENAI_API_KEY"),
            ("big", f"openai:m@{small.url}"),
        )  # fmt: skip
        env = {"OPENAI_API_KEY": "sk-test-not-a-key", "COLUMNS": "200"}
        started = time.monotonic()
        alone = CliRunner().invoke(app, ["agents", "check", "--config", str(league)], env=env)
        took = time.monotonic() - started
        run = CliRunner().invoke(
            app, ["run", "--config", str(league), "--clock", "replay", *SPAN], env=env
        )
    assert took < 5, f"the check took {took:.1f} s"
    for result in (alone, run):
        assert result.exit_code == EXIT_NO_DECISIONS, result.output
        lines = result.output.splitlines()
        (down,) = [x for x in lines if x.strip().startswith("down:")]
        assert "nothing answered at the provider's address" in down
        (key,) = [x for x in lines if x.strip().startswith("key:")]
        assert "the provider refused its key (HTTP 401" in key
        (big,) = [x for x in lines if x.strip().startswith("big:")]
        assert "(the model's context holds 600)" in big
        assert "[weights] Check before round one" in result.output
    assert not (tmp_path / "host.db").exists()


def test_a_passing_host_check_plays_and_no_check_skips_it(
    shared_data: Path, tmp_path: Path
) -> None:
    """A good agent passes (its prompt in the provider's tokens); the day is then played."""
    with FakeProvider() as fake:
        fake.script_model("m", ANSWER)
        league = _league(tmp_path, shared_data, ("m", f"openai:m@{fake.url}"))
        alone = CliRunner().invoke(app, ["agents", "check", "--config", str(league)])
        asked = len(fake.requests)
        run = CliRunner().invoke(app, ["run", "--config", str(league), "--clock", "replay", *SPAN])
        unchecked = len(fake.requests) - asked
    assert alone.exit_code == 0, alone.output
    assert asked == 1
    assert "m: ok: answered in" in alone.output
    assert "tokens (the provider's count)" in alone.output
    assert run.exit_code == 0, run.output
    assert "Check before round one" not in run.output  # a host's output is its JSON log
    assert unchecked == 1 + 5  # the host's check, then the Pro agent's five rounds
    with open_store(f"sqlite:///{tmp_path / 'host.db'}") as store:
        kinds = [s.event.kind for s in store.events("weights/W1")]
    assert kinds.count(EventKind.MODEL_CALLED) == 5  # the check's call is not recorded


def test_agents_check_says_when_nothing_calls_a_model(shared_data: Path, tmp_path: Path) -> None:
    """A roster of baselines: nothing to check, exit 0."""
    league = _league(tmp_path, shared_data)
    result = CliRunner().invoke(app, ["agents", "check", "--config", str(league)])
    assert result.exit_code == 0, result.output
    assert "nothing to check" in result.output


def test_agents_check_asks_the_arena_and_the_thesis_league_their_first_round(
    shared_data: Path, tmp_path: Path
) -> None:
    """Each format's host part builds its own first round: one line per model agent each."""
    down = f"openai:m@http://127.0.0.1:{_closed_port()}/v1"
    league = tmp_path / "league.toml"
    league.write_text(
        f"""
[league]
db = "sqlite:///{tmp_path / "host.db"}"

[direction]
market = "{shared_data / "crypto_1m"}"

[[direction.agents]]
name = "arena-down"
spec = "{down}"

[thesis]
season = "T1"
start = 2025-03-03
end = 2025-03-05
crypto = "{shared_data / "crypto_4h"}"
stocks = "{shared_data / "us_equities_daily"}"

[[thesis.agents]]
name = "thesis-down"
spec = "{down}"
""",
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["agents", "check", "--config", str(league)])
    assert result.exit_code == EXIT_NO_DECISIONS, result.output
    for name, key in (("arena-down", "direction"), ("thesis-down", "thesis")):
        assert f"[{key}] Check before round one" in result.output
        (line,) = [x for x in result.output.splitlines() if x.strip().startswith(f"{name}:")]
        assert "nothing answered at the provider's address" in line
    assert not (tmp_path / "host.db").exists()
