"""``replay direction --prices FILE``: each agent's inference cost and its return net of it.

Names: C-5 (every call recorded with its token counts and cost), W-EXE-7 (a cost
rounds up, to the micro-dollar, per call), D-SCO-1 (the ROI the net return sits
beside). A fake provider that speaks the OpenAI protocol reports fixed usage, so
each agent's cost is known exactly: the sum over its calls of tokens x price.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tradeleague.agents.recorded import call_record_of
from tradeleague.cli import app
from tradeleague.clock import WallClock
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind
from tradeleague.league.scenario import ScenarioService
from tradeleague.llm.token_prices import PriceTable
from tradeleague.money import MICRO
from tradeleague.site import create_site
from tradeleague.site.serving import serve_site
from tradeleague.stats import percent
from tradeleague.store import open_store
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour
from tradeleague.web.formatting import money

PRICES = """\
pricing_version = "2026-12-01"
[models."gpt-4o-mini"]
input_per_million = 0.15
output_per_million = 0.60
"""
PROMPT, COMPLETION = 1_234, 56
PER_CALL = 219
"""ceil((1,234 x 150,000 + 56 x 600,000) / 1,000,000) = ceil(218.7) micro-dollars a call."""
START = 50_000 * MICRO


def _replay(tmp: Path, market: Path, *extra: str) -> tuple[Any, str, dict[str, Any]]:
    """Replay half an hour: a priced model, an unpriced one and a baseline; return the result."""
    answer = json.dumps({"direction": "up", "rationale": "Up."})
    usage = Behaviour(text=answer, prompt_tokens=PROMPT, completion_tokens=COMPLETION)
    out = tmp / "REPORT.json"
    with FakeProvider() as fake:
        fake.script_model("gpt-4o-mini", usage)
        fake.script_model("mystery", usage)
        specs = [
            f"mini=openai:gpt-4o-mini@{fake.url}",
            f"odd=openai:mystery@{fake.url}",
            "bull=baseline:up",
        ]
        args = [
            "replay", "direction", "--market", str(market),
            "--start", "2025-09-01T06:00:00Z", "--end", "2025-09-01T06:30:00Z",
            "--db", f"sqlite:///{tmp / 'd.db'}", "--out", str(out),
            *[part for spec in specs for part in ("--agent", spec)], *extra,
        ]  # fmt: skip
        env = {"OPENAI_API_KEY": "sk-test", "COLUMNS": "220"}
        result = CliRunner().invoke(app, args, env=env)
    report = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    return result, result.output, report


def _micros(text: str) -> int:
    return int(Decimal(text) * MICRO)


def test_cost_is_tokens_times_price_to_the_micro_dollar_and_net_return_exact(
    shared_data: Path, tmp_path: Path
) -> None:
    """C-5, W-EXE-7: cost = sum of ceil(tokens x price) per call; net = (P&L - cost) / start.

    A model without a price is "unpriced", never 0; a baseline costs 0 and says so.
    """
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES, encoding="utf-8")
    result, text, report = _replay(tmp_path, shared_data / "crypto_1m", "--prices", str(prices))
    assert result.exit_code == 0, text
    costs = report["costs"]
    assert (costs["pricing_version"], costs["priced"]) == ("2026-12-01", True)
    mini, odd, bull = (costs["agents"][n] for n in ("mini", "odd", "bull"))
    calls = mini["calls"]
    assert calls == report["rounds"] == 6
    assert (mini["input_tokens"], mini["output_tokens"]) == (calls * PROMPT, calls * COMPLETION)
    assert _micros(mini["cost_usd"]) == calls * PER_CALL
    assert mini["basis"] == "priced"
    assert _micros(mini["cost_per_decision_usd"]) == -(-calls * PER_CALL // mini["decisions"])
    assert mini["latency_median_ms"] is not None
    assert mini["latency_p95_ms"] >= mini["latency_median_ms"]
    models = {m["name"]: m for m in report["models"]}
    balance = _micros(models["mini"]["balance"])
    net = Fraction(balance - START - calls * PER_CALL, START)
    assert mini["net_return"] == str(percent(net))
    assert mini["return"] == models["mini"]["roi"]
    # the same usage with no price: unpriced, never zero
    assert (odd["cost_usd"], odd["basis"], odd["net_return"]) == (None, "unpriced", None)
    assert odd["unpriced_models"] == ["mystery"]
    assert odd["input_tokens"] == calls * PROMPT
    # a baseline makes no call: it costs exactly nothing, and says so
    assert (bull["calls"], bull["cost_usd"], bull["basis"]) == (0, "0.000000", "no_model_calls")
    assert bull["net_return"] == bull["return"] == models["bull"]["roi"]
    # the terminal's cost table says the same
    rows = {
        cells[0]: cells
        for line in text.splitlines()
        if line.count("│") > 5
        for cells in [[c.strip() for c in line.split("│")[1:-1]]]
    }
    assert rows["mini"][4] == mini["cost_usd"]
    assert rows["odd"][4] == "unpriced"
    assert rows["odd"][-1] == "unpriced"
    assert rows["bull"][4] == "0 (no model calls)"
    assert "Prices: table of 2026-12-01" in text
    # C-5: the gateway recorded the same cost with each call
    with open_store(f"sqlite:///{tmp_path / 'd.db'}", upgrade=False) as store:
        recorded = [
            call_record_of(e.event.payload)
            for e in store.events("direction")
            if e.event.kind == EventKind.MODEL_CALLED
        ]
    by_model = {(r.model, r.cost_micros) for r in recorded}
    assert by_model == {("gpt-4o-mini", PER_CALL), ("mystery", None)}


def test_without_a_price_table_every_model_is_unpriced(shared_data: Path, tmp_path: Path) -> None:
    """C-5: no table, no cost: the models read "unpriced", the baseline still 0."""
    result, text, report = _replay(tmp_path, shared_data / "crypto_1m")
    assert result.exit_code == 0, text
    costs = report["costs"]
    assert (costs["pricing_version"], costs["priced"]) == (None, False)
    assert costs["agents"]["mini"]["cost_usd"] is None
    assert costs["agents"]["mini"]["basis"] == "unpriced"
    assert costs["agents"]["bull"]["cost_usd"] == "0.000000"
    assert "No price table given (--prices FILE)" in text


def test_a_bad_price_table_is_refused_before_anything_runs(
    shared_data: Path, tmp_path: Path
) -> None:
    """The table comes from outside: a float-free, complete TOML table or one sentence."""
    prices = tmp_path / "prices.toml"
    prices.write_text('pricing_version = "x"\n[models.m]\ninput_per_million = 1\n')
    result, _, report = _replay(tmp_path, shared_data / "crypto_1m", "--prices", str(prices))
    assert isinstance(result.exception, ConfigError)
    assert report == {}
    said = str(result.exception)
    assert said.startswith("--prices: price table ")
    assert "must have exactly input_per_million and output_per_million" in said
    assert not (tmp_path / "d.db").exists()


def test_the_board_json_and_pages_carry_the_report_s_costs(
    shared_data: Path, tmp_path: Path
) -> None:
    """C-5: /api/v1/direction/boards, the board page and each model page say what REPORT.json says.

    The site prices with the table it is given (``serve --prices`` or the league file's).
    """
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES, encoding="utf-8")
    result, text, report = _replay(tmp_path, shared_data / "crypto_1m", "--prices", str(prices))
    assert result.exit_code == 0, text
    table = PriceTable.from_file(prices)
    with open_store(f"sqlite:///{tmp_path / 'd.db'}") as store:
        site = create_site(
            ScenarioService(store, WallClock()), direction_stream="direction", prices=table
        )
        with TestClient(site) as client:
            board = client.get("/api/v1/direction/boards").json()
            page = client.get("/direction").text
            models = {n: client.get(f"/direction/models/{n}").text for n in ("mini", "odd", "bull")}
            log = client.get("/api/v1/direction/models/mini/log").json()
            unpriced_site = create_site(
                ScenarioService(store, WallClock()), direction_stream="direction"
            )
            with TestClient(unpriced_site) as bare:
                bare_board = bare.get("/api/v1/direction/boards").json()
    assert board["costs"] == report["costs"]
    assert log["cost"] == report["costs"]["agents"]["mini"]
    assert bare_board["costs"]["agents"]["mini"]["cost_usd"] is None
    section = page[page.index('data-board="costs"') :]
    # the page shows the cost through the one formatting layer (a fraction of a cent)
    mini = money(report["costs"]["agents"]["mini"]["cost_usd"])
    for name, want in (("mini", mini), ("odd", "unpriced"),
                       ("bull", "0 (no model calls)")):  # fmt: skip
        row = section[section.index(f'data-agent="{name}"') :]
        assert re.search(
            rf'<td class="num" data-field="cost_usd"[^>]*>{re.escape(want)}</td>',
            row[: row.index("</tr>")],
        ), name
    assert "Prices of 2026-12-01" in page
    assert '<dd data-field="cost_usd">unpriced</dd>' in models["odd"]
    assert '<dd data-field="cost_usd">0 (no model calls)</dd>' in models["bull"]
    net = report["costs"]["agents"]["mini"]["net_return"]
    assert f'<dd data-field="net_return">{net}%' in models["mini"]


def test_serve_prices_the_boards_with_the_table_it_is_given(
    shared_data: Path, tmp_path: Path
) -> None:
    """C-5: ``serve --prices`` (or the league file's ``prices``) reaches every board's costs."""
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES, encoding="utf-8")
    result, text, report = _replay(tmp_path, shared_data / "crypto_1m")
    assert result.exit_code == 0, text
    assert report["costs"]["priced"] is False  # the replay had no table ...
    table = PriceTable.from_file(prices)
    with open_store(f"sqlite:///{tmp_path / 'd.db'}") as store:
        app, _ = serve_site(store, WallClock(), {"prices": table, "direction_stream": "direction"})
        with TestClient(app) as client:
            costs = client.get("/api/v1/direction/boards").json()["costs"]
    # ... the site prices the same recorded calls: cost is tokens x price, exactly
    assert (costs["priced"], costs["pricing_version"]) == (True, "2026-12-01")
    mini = costs["agents"]["mini"]
    assert _micros(mini["cost_usd"]) == mini["calls"] * PER_CALL
    assert costs["agents"]["odd"]["cost_usd"] is None
