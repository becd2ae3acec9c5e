"""The check before round one (issue 25 item 3): bad agents stop a replay before it plays.

Acceptance: ``replay weights`` with a dead provider, a wrong key and an oversized
prompt exits 3 in under 5 s with one line per cause and no round played.
"""

from __future__ import annotations

import time
from pathlib import Path

from cli_helpers import closed_port, run_cli  # type: ignore[import-not-found]

from tradeleague.events import EventKind
from tradeleague.store import open_store
from tradeleague.terminal.exits import EXIT_NO_DECISIONS
from tradeleague.testing.fake_provider import FakeProvider


def _nothing_recorded(db: Path) -> None:
    """The refused check left the store without an event (it holds the season's claim first)."""
    with open_store(f"sqlite:///{db}", upgrade=False) as store:
        assert store.count() == 0


ANSWER = '{"targets": {}, "reason": "Hold cash."}'
SEASON = "replay-us_equities_1h-2025-06-02-2025-06-04-open"


def _replay(
    market: Path, tmp_path: Path, *agents: str, check: bool = True
) -> tuple[str, int, float]:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    args = [a for name in agents for a in ("--agent", name)]
    started = time.monotonic()
    done = run_cli(
        "replay", "weights", "--market", str(market), *args,
        "--start", "2025-06-02", "--end", "2025-06-04", "--timeout", "10", "--db", db,
        *([] if check else ["--no-check"]),
        cwd=tmp_path, OPENAI_API_KEY="sk-test-not-a-key",
    )  # fmt: skip
    return done.stdout + done.stderr, done.returncode, time.monotonic() - started


def test_replay_with_a_dead_provider_a_wrong_key_and_a_large_prompt_stops_before_round_one(
    shared_data: Path, tmp_path: Path
) -> None:
    """Issue 25 acceptance: exit 3 in under 5 s, one line per cause, no round played."""
    with (
        FakeProvider(require_key="the-right-key") as keyed,
        FakeProvider(context=600) as small,
    ):
        keyed.script_model("m", ANSWER)
        small.script_model("m", ANSWER)
        out, status, took = _replay(
            shared_data / "us_equities_1h", tmp_path,
            f"down=openai:m@http://127.0.0.1:{closed_port()}/v1",
            f"key=openai:m@{keyed.url},key_env=OPENAI_API_KEY",
            f"big=openai:m@{small.url}",
            "cash=baseline:cash",
        )  # fmt: skip
        asked = len(keyed.requests) + len(small.requests)
    assert status == EXIT_NO_DECISIONS, out
    assert took < 5, f"the check took {took:.1f} s"
    assert asked == 2  # one call each, the round's own
    lines = out.splitlines()
    (down,) = [x for x in lines if x.strip().startswith("down:")]
    assert "nothing answered at the provider's address" in down
    assert "start the server or correct the URL and port" in down
    (key,) = [x for x in lines if x.strip().startswith("key:")]
    assert "the provider refused its key (HTTP 401" in key
    assert "check the key variable's value" in key
    (big,) = [x for x in lines if x.strip().startswith("big:")]
    assert "does not fit the model's context (the model's context holds 600)" in big
    assert "(llama.cpp: -c)" in big
    assert "of 600 tokens" not in big  # the allowed count is never read as the requested one
    assert not [x for x in lines if x.strip().startswith("cash:")]  # a baseline is not checked
    assert "--no-check" in out
    _nothing_recorded(tmp_path / "league.db")  # the claim only: no round played


def test_the_oversized_prompt_quotes_the_providers_requested_and_allowed_counts(
    shared_data: Path, tmp_path: Path
) -> None:
    """Issue 25 item 4: the provider's own counts, not the first number of its message."""
    with FakeProvider(context=600) as small:
        small.script_model("m", ANSWER)
        out, status, _took = _replay(
            shared_data / "us_equities_1h", tmp_path, f"big=openai:m@{small.url}"
        )
        (request,) = small.requests
    assert status == EXIT_NO_DECISIONS, out
    prompt = sum(max(1, (len(m.content) + 3) // 4) for m in request.messages)
    wanted = f"the request of {prompt + 400} tokens ({prompt} in the messages) does not fit"
    assert wanted in out


def test_a_passing_check_says_what_it_measured_and_the_season_plays(
    shared_data: Path, tmp_path: Path
) -> None:
    """Issue 25 item 3: a good agent passes with the provider's token count; rounds follow."""
    with FakeProvider() as fake:
        fake.script_model("m", ANSWER)
        out, status, _took = _replay(
            shared_data / "us_equities_1h", tmp_path, f"ok=openai:m@{fake.url}"
        )
        calls = len(fake.requests)
    assert status == 0, out
    (line,) = [x for x in out.splitlines() if x.strip().startswith("ok: ok: answered")]
    assert "tokens (the provider's count)" in line
    assert "refused" not in line
    assert calls == 1 + 2  # the check, then the season's two Open rounds
    with open_store(f"sqlite:///{tmp_path / 'league.db'}") as store:
        kinds = [s.event.kind for s in store.events(f"weights/{SEASON}")]
    assert kinds.count(EventKind.ROUND_STARTED) == 10  # five hours a day, two days
    assert kinds.count(EventKind.MODEL_CALLED) == 2  # the check's call is not recorded


def test_no_check_plays_the_rounds_and_the_summary_names_the_cause(
    shared_data: Path, tmp_path: Path
) -> None:
    """``--no-check``: the rounds are played and the summary says why nothing was decided."""
    out, status, _took = _replay(
        shared_data / "us_equities_1h", tmp_path,
        f"down=openai:m@http://127.0.0.1:{closed_port()}/v1", check=False,
    )  # fmt: skip
    assert status == EXIT_NO_DECISIONS, out
    assert "Check before round one" not in out
    assert "down never decided: nothing answered" in out


def test_replay_direction_checks_its_model_agents_before_round_one(
    shared_data: Path, tmp_path: Path
) -> None:
    """Issue 25 item 3: the arena's first round asked once per model agent, nothing written."""
    with FakeProvider(context=300) as small:
        small.script_model("m", '{"direction": "up", "rationale": "r"}')
        done = run_cli(
            "replay", "direction", "--market", str(shared_data / "crypto_1m"),
            "--agent", f"big=openai:m@{small.url}", "--agent", "up=baseline:up",
            "--end", "2025-09-02T06:00Z", "--db", f"sqlite:///{tmp_path / 'arena.db'}",
            cwd=tmp_path,
        )  # fmt: skip
        (request,) = small.requests
    assert done.returncode == EXIT_NO_DECISIONS, done.stderr
    (big,) = [x for x in done.stdout.splitlines() if x.strip().startswith("big:")]
    prompt = sum(max(1, (len(m.content) + 3) // 4) for m in request.messages)
    assert f"the request of {prompt + request.body['max_tokens']} tokens" in big
    assert "(the model's context holds 300)" in big
    _nothing_recorded(tmp_path / "arena.db")  # the claim only: no round played


def test_replay_thesis_checks_its_model_agents_before_the_first_cycle(
    shared_data: Path, tmp_path: Path
) -> None:
    """Issue 25 item 3: the first cycle asked once per model agent; a good one passes."""
    answer = (
        '{"reasoning": "Nothing to do.", "market_context": {"overall_sentiment": "neutral", '
        '"key_factors": []}, "decisions": []}'
    )
    with FakeProvider(require_key="the-right-key") as keyed, FakeProvider() as fine:
        keyed.script_model("m", answer)
        fine.script_model("m", answer)
        done = run_cli(
            "replay", "thesis", "--crypto", str(shared_data / "crypto_4h"),
            "--stocks", str(shared_data / "us_equities_daily"),
            "--start", "2025-03-03", "--end", "2025-03-05",
            "--agent", f"key=openai:m@{keyed.url},key_env=OPENAI_API_KEY",
            "--agent", f"fine=openai:m@{fine.url}", "--agent", "cash=baseline:cash",
            "--db", f"sqlite:///{tmp_path / 'thesis.db'}",
            cwd=tmp_path, OPENAI_API_KEY="sk-test-not-a-key",
        )  # fmt: skip
        asked = (len(keyed.requests), len(fine.requests))
    assert done.returncode == EXIT_NO_DECISIONS, done.stderr
    assert asked == (1, 1)
    lines = done.stdout.splitlines()
    (key,) = [x for x in lines if x.strip().startswith("key:")]
    assert "the provider refused its key (HTTP 401" in key
    (ok,) = [x for x in lines if x.strip().startswith("fine:")]
    assert "ok: answered in" in ok
    _nothing_recorded(tmp_path / "thesis.db")  # the claim only: no round played


def test_an_answer_out_of_format_passes_the_check_with_a_note(
    shared_data: Path, tmp_path: Path
) -> None:
    """The check is of the provider, key, model and context: a refused answer is a note."""
    with FakeProvider() as fake:
        fake.script_model("m", "Sure! Hold cash.")
        out, status, _took = _replay(
            shared_data / "us_equities_1h", tmp_path, f"p=openai:m@{fake.url}"
        )
    (line,) = [x for x in out.splitlines() if x.strip().startswith("p: ok: answered")]
    assert "its answer was refused (not_in_format)" in line
    assert "Recording to" in out  # the season was played
    assert status == EXIT_NO_DECISIONS  # and ended honestly: answered, never validly
    assert "p answered 2 times, 0 valid: not_in_format 2; try output=json_schema" in out
