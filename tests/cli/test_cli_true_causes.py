"""True causes and honest exits (issue 25 item 4).

Every ending is counted by its reason code and the most common named; an agent that
answered but never validly gets its own line and exit 3, as a provider failure does;
a context overflow quotes the provider's own counts; ``log`` says what each column is.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run_cli  # type: ignore[import-not-found]

from tradeleague.league.answers import context_counts
from tradeleague.terminal.exits import EXIT_NO_DECISIONS
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour

PROSE = 'The JSON object is: ```json {"weights": {}, "reason": "r"}```'
"""What llama-cpp-python's server answered an unconstrained request with: not the format."""
SEASON = "replay-us_equities_daily-2025-06-02-2025-06-07-open"


def _replay(shared_data: Path, tmp_path: Path, *agents: str) -> tuple[str, int]:
    done = run_cli(
        "replay", "weights", "--market", str(shared_data / "us_equities_daily"),
        "--symbols", "SPY,QQQ", "--start", "2025-06-02", "--end", "2025-06-07",
        *[a for spec in agents for a in ("--agent", spec)], "--timeout", "3",
        "--db", f"sqlite:///{tmp_path / 'league.db'}", "--no-check",
        cwd=tmp_path,
    )  # fmt: skip
    return done.stdout, done.returncode


def test_answered_but_never_valid_has_its_own_line_and_exit_3(
    shared_data: Path, tmp_path: Path
) -> None:
    """W-VAL-1 refusals counted by code; the most common named; exit 3 (was 0, silent)."""
    with FakeProvider() as fake:
        fake.script_model("m", PROSE)
        out, status = _replay(
            shared_data, tmp_path, f"plain=openai:m@{fake.url}",
            f"schema=openai:m@{fake.url},output=json_schema", "cash=baseline:cash",
        )  # fmt: skip
    assert status == EXIT_NO_DECISIONS, out
    flat = " ".join(out.split())
    assert (
        "plain: decisions 0; no decision: not_in_format 5; provider faults: none; "
        "most common: not_in_format (5)"
    ) in flat
    assert "plain answered 5 times, 0 valid: not_in_format 5; try output=json_schema" in flat
    # It was sent the schema and still answered prose: the server ignored it.
    assert "schema answered 5 times, 0 valid: not_in_format 5; its server did not keep" in flat
    assert "(@llamacpp=URL, @vllm=URL, @ollama=URL)" in flat
    assert "cash: decisions 5; no decision: none; provider faults: none" in flat
    assert "never decided" not in flat


def test_four_refusals_and_one_timeout_name_the_refusals_not_the_timeout(
    shared_data: Path, tmp_path: Path
) -> None:
    """The issue's case: 4 not_in_format and 1 timeout said "raise --timeout"; now the truth."""
    with FakeProvider() as fake:
        fake.enqueue("m", PROSE, PROSE, PROSE, PROSE, Behaviour(text=PROSE, latency_s=60))
        out, status = _replay(shared_data, tmp_path, f"m=openai:m@{fake.url}")
    assert status == EXIT_NO_DECISIONS, out
    flat = " ".join(out.split())
    assert "most common: not_in_format (4)" in flat
    assert "m answered 4 times, 0 valid: not_in_format 4, timeout 1; try output=json_schema" in flat
    assert "raise --timeout" not in flat
    assert "never decided" not in flat


def test_log_headers_say_what_each_column_is(shared_data: Path, tmp_path: Path) -> None:
    """``log``'s token column is the prompt's tokens, and says so."""
    with FakeProvider() as fake:
        fake.script_model("m", PROSE)
        _replay(shared_data, tmp_path, f"m=openai:m@{fake.url}")
    logged = run_cli(
        "log", "--season", SEASON, "--db", f"sqlite:///{tmp_path / 'league.db'}", cwd=tmp_path
    )
    assert logged.returncode == 0, logged.stderr
    header = " ".join(logged.stdout.split())
    for column in ("attempt", "provider fault: error", "latency", "prompt tokens", "answer text"):
        assert column in header
    assert "│ tokens │" not in logged.stdout


@pytest.mark.parametrize(
    ("error", "requested", "allowed", "messages"),
    [
        (
            "This model's maximum context length is 8192 tokens. However, you requested "
            "10224 tokens (9904 in the messages, 320 in the completion). Please reduce the "
            "length of the messages or completion.",
            10224, 8192, 9904,
        ),
        (
            "the request exceeds the available context size (n_prompt_tokens 2503, n_ctx 512); "
            "try increasing the context size or enable context shift",
            2503, 512, None,
        ),
        ("the context window is 4096 tokens; the prompt has 5000 tokens", 5000, 4096, None),
        ("context too small", None, None, None),
    ],
)  # fmt: skip
def test_context_overflow_quotes_the_providers_counts_by_name(
    error: str, requested: int | None, allowed: int | None, messages: int | None
) -> None:
    """The requested and allowed counts are read by what names them, never the first number."""
    counts = context_counts(error)
    assert (counts.requested, counts.allowed, counts.messages) == (requested, allowed, messages)
