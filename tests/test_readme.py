"""The README is tested: its first commands, its CLI commands, its example agent (C-1)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tradeleague import DISCLAIMER
from tradeleague.accounts import Tier
from tradeleague.cli import app
from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.league.scenario.routes import create_app
from tradeleague.market import synthetic_dataset
from tradeleague.store import open_store
from tradeleague.testing.server import serve_asgi

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_readme_starts_with_the_two_commands_and_the_disclaimer() -> None:
    """The set-up contract: `make demo` and `make test` come first; C-1's line follows."""
    first_block = README.split("```")[1]
    commands = [line.split("#")[0].strip() for line in first_block.strip().splitlines()]
    assert commands == ["make demo", "make test"]
    assert DISCLAIMER in README[: README.index("## ")]


def _code_lines() -> list[str]:
    """Return the README's code: fenced blocks, indented blocks and `inline` spans."""
    lines: list[str] = []
    fenced = False
    for line in README.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif fenced or line.startswith("    "):
            lines.append(line)
        else:
            lines.extend(re.findall(r"`([^`]+)`", line))
    return lines


def _cli_commands() -> list[list[str]]:
    found = []
    for line in _code_lines():
        match = re.search(r"(?:^|\s|/)tradeleague ([a-z][a-z -]*[a-z])", line)
        if match:
            words = [w for w in match.group(1).split() if not w.startswith("-")]
            if words[:2] not in found:
                found.append(words[:2])
    return found


@pytest.mark.parametrize("words", _cli_commands(), ids=" ".join)
def test_every_cli_command_in_the_readme_exists(words: list[str]) -> None:
    """Each `tradeleague ...` the README names answers `--help` (a renamed command fails here)."""
    for depth in (len(words), 1):
        result = CliRunner().invoke(app, [*words[:depth], "--help"])
        if result.exit_code == 0:
            return
    pytest.fail(f"`tradeleague {' '.join(words)} --help` failed: {result.output}")


def test_the_readme_example_agent_runs_end_to_end(tmp_path: Path) -> None:
    """S-API-1..5 as a builder meets them: the README's agent, unchanged, over real HTTP."""
    block = README.split("```python", 1)[1].split("```", 1)[0]
    clock = ReplayClock(datetime(2026, 3, 10, 12, tzinfo=UTC))
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 'svc.db'}"), clock)
    try:
        data = synthetic_dataset(2, 30, seed=3, symbols=("NVDA", "SPY"))
        start, end = datetime(2024, 1, 1, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)
        provision_from_market(service, "readme", data, ("NVDA", "SPY"), start, end)
        key = service.create_key("reader", Tier.FREE)
        printed: list[object] = []
        with serve_asgi(create_app(service)) as url:
            code = block.replace("http://127.0.0.1:8000", url).replace('"tl_..."', repr(key))
            exec(compile(code, "README.md", "exec"), {"print": printed.append})  # noqa: S102
    finally:
        service.store.close()
    assert len(printed) == 1
    results = printed[0]
    assert isinstance(results, dict)
    assert {"return", "sharpe", "sortino", "max_drawdown", "volatility"} <= set(results)
