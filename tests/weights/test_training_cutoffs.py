"""Training cutoffs on every result (issue 28, item 1): REPORT.json, board JSON, pages.

One short weights replay (three daily rounds, two symbols) with the same scripted
answers under four model agents: a cutoff after the period (``before_cutoff``:
the period overlaps what the model may have read), a cutoff before it
(``after_cutoff``), none (``cutoff_unknown``), and one whose cutoff comes from
a models file (the same mark as the spec gives). Baselines are not models: no mark.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tradeleague.agents.cutoff import (
    HOUSE_CUTOFF,
    cutoff_end,
    read_models,
    resolve_cutoffs,
    training_cutoff,
)
from tradeleague.agents.spec import parse_agent_spec
from tradeleague.cli import app
from tradeleague.clock import WallClock
from tradeleague.errors import ConfigError
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store

ANSWER = {"text": json.dumps({"targets": {"SPY": 50, "QQQ": 50}, "reason": "Half and half."})}
SEASON = "cutoffs"


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> dict[str, Any]:
    """Replay three daily rounds in June 2025; return the report, the db URL and the folder."""
    root = tmp_path_factory.mktemp("cutoffs")
    script = root / "answers.jsonl"
    script.write_text("\n".join(json.dumps(ANSWER) for _ in range(3)) + "\n", encoding="utf-8")
    models = root / "models.toml"
    models.write_text('[models."filed"]\ncutoff = "2025-12"\n', encoding="utf-8")
    url = f"sqlite:///{root / 'league.db'}"
    agents = [
        "cash=baseline:cash",
        f"late=scripted:{script},cutoff=2025-12",
        f"early=scripted:{script},cutoff=2024-06-15",
        f"unknown=scripted:{script}",
        f"filed=scripted:{script}",
    ]
    result = CliRunner().invoke(
        app,
        [
            "replay", "weights", "--market", str(shared_data / "us_equities_daily"),
            "--symbols", "SPY,QQQ", "--start", "2025-06-02", "--end", "2025-06-05",
            "--season", SEASON, "--db", url, "--out", str(root / "REPORT.json"),
            "--models", str(models), *[a for spec in agents for a in ("--agent", spec)],
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((root / "REPORT.json").read_text(encoding="utf-8"))
    return {"report": report, "url": url, "root": root}


def _statuses(rows: list[dict[str, Any]], key: str = "name") -> dict[str, Any]:
    return {
        r[key]: None if r["training_cutoff"] is None else r["training_cutoff"]["status"]
        for r in rows
    }


EXPECTED = {
    "cash": None,
    "late": "before_cutoff",
    "early": "after_cutoff",
    "unknown": "cutoff_unknown",
    "filed": "before_cutoff",
}


def test_report_marks_each_model_agent_against_its_cutoff(replayed: dict[str, Any]) -> None:
    """A cutoff after the period: before_cutoff; before it: after_cutoff; none: unknown."""
    agents = replayed["report"]["agents"]
    assert _statuses(agents) == EXPECTED
    marks = {a["name"]: a["training_cutoff"] for a in agents}
    assert marks["late"] == {"status": "before_cutoff", "cutoff": "2025-12", "source": "spec"}
    assert marks["early"] == {"status": "after_cutoff", "cutoff": "2024-06-15", "source": "spec"}
    assert marks["unknown"] == {"status": "cutoff_unknown", "cutoff": None, "source": None}
    # the models file gives the same mark as the spec would, and says where it came from
    assert marks["filed"] == {"status": "before_cutoff", "cutoff": "2025-12", "source": "models"}


def test_the_cutoff_is_recorded_in_the_season_events(replayed: dict[str, Any]) -> None:
    """The models file's cutoff is written into the recorded spec: a replay reads it back."""
    with open_store(replayed["url"], upgrade=False) as store:
        stream = next(s for s in store.streams("weights") if SEASON in s)
        specs = {
            str(e.event.payload["name"]): str(e.event.payload["spec"])
            for e in store.events(stream)
            if "spec" in e.event.payload
        }
    assert specs["filed"].endswith(",cutoff=2025-12,cutoff_source=models")
    assert parse_agent_spec(specs["filed"]).cutoff == "2025-12"
    assert specs["cash"] == "cash=baseline:cash"


def test_the_report_rebuilt_from_the_events_has_the_same_marks(replayed: dict[str, Any]) -> None:
    """`report` from the store (no models file) writes the same REPORT.json; `verify` passes."""
    again = replayed["root"] / "again.json"
    runner = CliRunner()
    made = runner.invoke(
        app, ["report", "--db", replayed["url"], "--season", SEASON, "--out", str(again)]
    )
    assert made.exit_code == 0, made.output
    assert json.loads(again.read_text(encoding="utf-8")) == replayed["report"]
    checked = runner.invoke(app, ["verify", "--db", replayed["url"]])
    assert checked.exit_code == 0, checked.output


def test_board_json_and_pages_mark_the_rows(replayed: dict[str, Any]) -> None:
    """The board JSON, the season page and the agent page carry the same marks, in words."""
    store = open_store(replayed["url"], upgrade=False)
    try:
        with TestClient(create_site(ScenarioService(store, WallClock()))) as client:
            board = client.get(f"/api/v1/weights/seasons/{SEASON}/tables/open")
            assert board.status_code == 200, board.text
            assert _statuses(board.json()["rows"]) == EXPECTED
            page = client.get(f"/weights/{SEASON}")
            assert page.status_code == 200
            for name, status in EXPECTED.items():
                shown = status or "not_a_model"
                assert f'data-cutoff="{shown}"' in page.text, name
            assert "may reflect memory" in page.text
            agent = client.get(f"/weights/{SEASON}/agents/late")
            assert 'data-cutoff="before_cutoff"' in agent.text
            assert "results may reflect memory" in agent.text
            method = client.get("/methodology/weights")
            assert "before_cutoff" in method.text
            assert "after_cutoff" in method.text
    finally:
        store.close()


def test_cutoff_rule_at_the_edges() -> None:
    """The season's first day on the cutoff's last day is before_cutoff; the day after, after."""
    spec = "m=openai:m@openrouter,cutoff=2024-06"
    assert cutoff_end("2024-06").isoformat() == "2024-06-30"
    on = training_cutoff(spec, cutoff_end("2024-06"))
    after = training_cutoff(spec, cutoff_end("2024-07-01"))
    assert on is not None
    assert on["status"] == "before_cutoff"
    assert after is not None
    assert after["status"] == "after_cutoff"
    assert training_cutoff("b=baseline:cash", cutoff_end("2024")) is None
    with pytest.raises(ConfigError, match="YYYY-MM"):
        parse_agent_spec("m=openai:m@openrouter,cutoff=June")


def test_house_model_and_models_file(tmp_path: Path) -> None:
    """The house model's cutoff is recorded with its source; a spec's own cutoff wins."""
    models = tmp_path / "models.toml"
    models.write_text('[models."openai/gpt-4o-mini"]\ncutoff = "2023-10"\n', encoding="utf-8")
    found = read_models(models)
    specs = resolve_cutoffs(
        [
            "h=local:house",
            "g=openai:openai/gpt-4o-mini@openrouter",
            "own=openai:openai/gpt-4o-mini@openrouter,cutoff=2024-01",
            "cash=baseline:cash",
        ],
        found,
    )
    assert specs[0] == f"h=local:house,cutoff={HOUSE_CUTOFF},cutoff_source=house"
    assert specs[1].endswith(",cutoff=2023-10,cutoff_source=models")
    assert specs[2:] == [
        "own=openai:openai/gpt-4o-mini@openrouter,cutoff=2024-01",
        "cash=baseline:cash",
    ]
    models.write_text('[models."x"]\ncutoff = "soon"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="YYYY-MM"):
        read_models(models)


def test_a_league_files_models_file_writes_cutoffs_into_its_agents(tmp_path: Path) -> None:
    """[league] models: a hosted agent's spec gets its cutoff before any season records it."""
    from tradeleague.host.config import parse_league
    from tradeleague.league.weights.config import WeightsConfig

    (tmp_path / "models.toml").write_text('[models."gpt"]\ncutoff = "2023-10"\n', "utf-8")
    text = (
        '[league]\nmodels = "models.toml"\n[weights]\nseason = "W"\nstart = 2025-09-01\n'
        'roll = true\n[[weights.agents]]\nname = "gpt"\nspec = "openai:gpt@openrouter"\n'
        '[[weights.agents]]\nname = "cash"\nspec = "baseline:cash"\n'
    )
    weights = parse_league(text, tmp_path / "league.toml").of(WeightsConfig)
    assert weights is not None
    specs = {a.name: a.spec for a in weights.agents}
    assert specs == {
        "gpt": "openai:gpt@openrouter,cutoff=2023-10,cutoff_source=models",
        "cash": "baseline:cash",
    }
    with pytest.raises(ConfigError, match="models"):
        parse_league(text.replace("models.toml", "missing.toml"), tmp_path / "league.toml")
