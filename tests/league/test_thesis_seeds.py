"""Thesis coin flippers draw from seeds of their own, as every seeded baseline does (issue 16).

Each coin flipper's seed is derived from the season, its name and the base seed
(`agents.seeds.agent_seed`): six flippers in one season do not all call the
same side, the same command draws the same coins again, and another season
draws others.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tradeleague.cli import app

FLIPPERS = [f"flip-{c}" for c in "abcdef"]


def _sides(shared_data: Path, tmp_path: Path, tag: str, season: str) -> dict[str, list[str]]:
    """Run a short thesis replay of six coin flippers; return each one's opening actions."""
    out = tmp_path / f"{tag}.json"
    agents = [arg for name in FLIPPERS for arg in ("--agent", f"{name}=baseline:coin-flip")]
    args = [
        "replay", "thesis", "--crypto", str(shared_data / "crypto_4h"),
        "--stocks", str(shared_data / "us_equities_daily"), "--start", "2025-03-03",
        "--end", "2025-03-10", *agents, "--season", season,
        "--db", f"sqlite:///{tmp_path / f'{tag}.db'}", "--out", str(out),
    ]  # fmt: skip
    result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    sides: dict[str, list[str]] = {}
    for agent in report["agents"]:
        opened = [
            str(d["action"])
            for e in agent["entries"]
            for d in e["decisions"]
            if str(d["action"]).startswith("open_")
        ]
        sides[agent["name"]] = opened
    return sides


def test_thesis_coin_flippers_draw_per_season_and_name(shared_data: Path, tmp_path: Path) -> None:
    """Issue 16: no two flippers share a coin unless told to; the same replay repeats its coins."""
    first = _sides(shared_data, tmp_path, "one", "S1")
    assert set(first) == set(FLIPPERS)
    assert all(first[name] for name in FLIPPERS)  # every flipper opened something
    assert len({tuple(s) for s in first.values()}) > 1  # not one coin for all six
    assert _sides(shared_data, tmp_path, "again", "S1") == first  # same season, same coins
    other = _sides(shared_data, tmp_path, "other", "S2")
    assert other != first  # another season draws other coins
