"""Agent, model and round pages with a head: targets beside holdings, a paged log, prev/next.

The weights agent page shows the weights asked for each round beside the
weights held after it; the arena's model log reads newest first, 50 a page,
under a summary of calls, outcomes, skips by cause and the current streak;
a round page names its entry and exit prices and links its neighbours.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tradeleague.league.direction.log_page import LOG_PAGE, log_page
from tradeleague.league.weights.targets import asked_and_got
from tradeleague.web.formatting import drawdown, money, pct, qty
from web.site_fill import (  # type: ignore[import-not-found]
    SEASON,
    SLASHED,
    THESIS_SEASON,
    THESIS_SLASHED,
    WEIGHTS_SLASHED,
    filled_client,
)


def test_asked_and_got_weights_in_percent() -> None:
    """W-PF-3: what was asked (basis points) beside what the fills left held, at the prices."""
    got = asked_and_got(
        {"A": 4000, "B": 2500},
        {"A": 2_000_000, "C": 1_000_000},  # 2 A at 20 USD, 1 C at 10 USD
        100_000_000,
        {"A": 20_000_000, "C": 10_000_000},
    )
    assert got == {
        "A": {"asked": "40.00", "got": "40.00"},
        "B": {"asked": "25.00", "got": None},  # no price this round
        "C": {"asked": "0.00", "got": "10.00"},
    }
    assert asked_and_got(None, {"A": 1}, 0, {}) == {"A": {"asked": None, "got": None}}


def test_a_log_page_is_newest_first_fifty_at_a_time_with_its_summary() -> None:
    rows: list[dict[str, str | None]] = [
        {"round": str(i), "direction": "up", "result": "win"} for i in range(120)
    ]
    rows += [{"round": "120", "direction": None, "result": "timeout"}]
    rows += [{"round": "121", "direction": "down", "result": "loss"}]
    first = log_page(rows, 1)
    assert LOG_PAGE == 50
    assert (first["page"], first["pages"]) == (1, 3)
    assert [r["round"] for r in first["rows"][:3]] == ["121", "120", "119"]
    assert len(first["rows"]) == 50
    last = log_page(rows, 99)  # past the end: the last page
    assert last["page"] == 3
    assert [r["round"] for r in last["rows"]][-1] == "0"
    summary = first["summary"]
    assert summary["calls"] == 121
    assert summary["outcomes"] == {"win": 120, "loss": 1, "draw": 0}
    assert summary["skips"] == {"timeout": 1}
    assert summary["streak"] == ("loss", 1)


@pytest.fixture(scope="module")
def client(filled: Any) -> Iterator[TestClient]:
    yield from filled_client(filled.service)


def test_the_weights_agent_page_shows_targets_beside_holdings(client: TestClient) -> None:
    agent = quote(WEIGHTS_SLASHED, safe="")
    body = client.get(f"/api/v1/weights/seasons/{SEASON}/agents/{agent}").json()
    decided = [e for e in body["entries"] if e["kind"] == "decision" and e["weights"]]
    assert decided, body["entries"]
    page = client.get(f"/weights/{SEASON}/agents/{agent}").text
    for symbol, w in decided[0]["weights"].items():
        assert w["asked"] is not None
        assert f"{symbol} {w['asked']}% → {w['got']}%" in page, symbol


def test_a_round_page_has_its_prices_and_links_its_neighbours(client: TestClient) -> None:
    rounds = client.get("/api/v1/direction/rounds").json()["rounds"]
    middle = rounds[len(rounds) // 2]["round"]
    body = client.get(f"/api/v1/direction/rounds/{middle}").json()
    assert body["previous"]
    assert body["next"]
    assert body["exit_price"] is not None
    page = client.get(f"/direction/rounds/{middle}").text
    assert f'rel="prev" href="/direction/rounds/{body["previous"]}"' in page
    assert f'rel="next" href="/direction/rounds/{body["next"]}"' in page
    assert re.search(r'data-field="exit_price">\$[\d,]+\.\d\d<', page)
    back = client.get(f"/api/v1/direction/rounds/{body['previous']}").json()
    assert back["next"] == middle


def test_the_model_page_reads_newest_first_under_its_summary(client: TestClient) -> None:
    log = client.get(f"/api/v1/direction/models/{quote(SLASHED, safe='')}/log").json()
    page = client.get(f"/direction/models/{quote(SLASHED, safe='')}").text
    rounds = re.findall(r'<a href="/direction/rounds/([^"]+)">', page)
    assert rounds == [r["round"] for r in reversed(log["rows"])][:LOG_PAGE]
    settled = sum(1 for r in log["rows"] if r["direction"])
    assert f"{settled} calls over {len(log['rows'])} rounds" in page


def test_the_thesis_agent_page_opens_with_its_return_and_equity(client: TestClient) -> None:
    board = client.get(f"/api/v1/thesis/{THESIS_SEASON}").json()
    name = board["rows"][0]["name"]
    body = client.get(f"/api/v1/thesis/{THESIS_SEASON}/agents/{quote(name, safe='')}").json()
    assert body["equity"][0] == "10000.000000"
    assert len(body["equity"]) > 1  # the start, then each cycle played
    page = client.get(f"/thesis/{THESIS_SEASON}/agents/{quote(name, safe='')}").text
    figure = re.search(r'data-field="summary_return">([^<]*)<', page)
    assert figure is not None
    assert figure.group(1) == pct(body["metrics"]["return"])
    assert f'aria-label="{name}&#x27;s account value against holding SPY, in dollars"' in page
    latest = body["entries"][-1]
    held = re.search(r'data-field="positions">(.*?)</dd>', page, re.S)
    assert held is not None
    for symbol, quantity in latest["positions"].items():
        assert f"{symbol} {qty(quantity)}" in held.group(1), symbol
    if not latest["positions"]:
        assert held.group(1) == "cash only"
    reasoning = re.search(r'data-field="latest_reasoning">(.*?)</dd>', page, re.S)
    assert reasoning is not None
    assert (latest["reasoning"] or "–")[:40] in reasoning.group(1)


VERSUS = re.compile(r'<figure class="race versus" data-versus="(\w+)">(.*?)</figure>', re.S)


def _versus_shown(page: str, key: str, versus: dict[str, Any]) -> None:
    """One SVG: the benchmark's line and the agent's; its numbers in the table, to the cent."""
    figures = VERSUS.findall(page)
    assert [k for k, _ in figures] == [key]
    svg = figures[0][1]
    assert svg.count("<svg") == 1
    assert svg.count("<path") == 2  # the agent and its benchmark, nothing else
    assert 'class="race-lead"' in svg
    assert 'class="race-base"' in svg
    table = page.split(f'<table class="versus-numbers" data-versus="{key}">')[1].split("</table>")[
        0
    ]
    agent = re.findall(r'data-field="agent">([^<]*)<', table)
    bench = re.findall(r'data-field="benchmark">([^<]*)<', table)
    assert agent == [money(p["agent"]) for p in versus["points"]]
    assert bench == [money(p["benchmark"]) for p in versus["points"]]


def test_agent_and_model_pages_draw_the_account_against_its_benchmark(client: TestClient) -> None:
    """Issue 26 item 3: the weights agent, the arena's model and the thesis agent, each one SVG.

    Both lines start from the start cash. The weights benchmark is held from the
    agent's first entry: it ends where the agent's paired benchmark steps
    compound to. The arena's benchmark calls up on every round the model
    traded: a model that only ever calls up draws the same line.
    """
    agent = quote(WEIGHTS_SLASHED, safe="")
    body = client.get(f"/api/v1/weights/seasons/{SEASON}/agents/{agent}").json()
    versus = body["versus"]
    assert versus["benchmark"] == f"holding {body['benchmark']}"
    assert versus["points"][0]["benchmark"] == versus["start"] == "10000.000000"
    assert [p["agent"] for p in versus["points"]] == [c["value"] for c in body["chart"]]
    grown = float(versus["start"])
    for step in body["scatter"]:
        grown *= 1 + step["benchmark"]
    assert abs(float(versus["points"][-1]["benchmark"]) - grown) < 0.01
    _versus_shown(client.get(f"/weights/{SEASON}/agents/{agent}").text, "agent", versus)

    model = quote(SLASHED, safe="")
    log = client.get(f"/api/v1/direction/models/{model}/log").json()
    versus = log["versus"]
    assert {r["direction"] for r in log["rows"] if r["direction"]} == {"up"}
    assert [p["agent"] for p in versus["points"]] == [r["balance_after"] for r in log["rows"]]
    assert [p["benchmark"] for p in versus["points"]] == [p["agent"] for p in versus["points"]]
    _versus_shown(client.get(f"/direction/models/{model}").text, "model", versus)

    name = quote(THESIS_SLASHED, safe="")
    body = client.get(f"/api/v1/thesis/{THESIS_SEASON}/agents/{name}").json()
    versus = body["versus"]
    assert versus["points"][0]["benchmark"] == versus["start"] == body["equity"][0]
    assert [p["agent"] for p in versus["points"]] == body["equity"][1:]
    _versus_shown(client.get(f"/thesis/{THESIS_SEASON}/agents/{name}").text, "agent", versus)


def test_the_weights_agent_page_heads_with_its_holdings_and_latest_reasoning(
    client: TestClient,
) -> None:
    agent = quote(WEIGHTS_SLASHED, safe="")
    body = client.get(f"/api/v1/weights/seasons/{SEASON}/agents/{agent}").json()
    latest = body["entries"][-1]
    page = client.get(f"/weights/{SEASON}/agents/{agent}").text
    held = re.search(r'data-field="positions">(.*?)</dd>', page, re.S)
    assert held is not None
    for symbol, w in latest["weights"].items():
        if w["got"] is not None and float(w["got"]) != 0:
            assert f"{symbol} {w['got']}%" in held.group(1), symbol
    reasoning = re.search(r'data-field="latest_reasoning">(.*?)</dd>', page, re.S)
    assert reasoning is not None
    assert html.escape(latest["reason"] or "", quote=False)[:40] in reasoning.group(1)
    assert 'data-field="max_drawdown"' in page  # with return, value and cost above
    standing = body["standing"]
    decided = f"{standing['decisions']} in {standing['entries']} rounds"
    assert f'data-field="decisions">{decided}<' in page


def test_the_model_page_heads_with_its_standing_and_latest_call(client: TestClient) -> None:
    models = client.get("/api/v1/direction/boards").json()["models"]
    row = next(m for m in models if m["name"] == SLASHED)
    log = client.get(f"/api/v1/direction/models/{quote(SLASHED, safe='')}/log").json()
    page = client.get(f"/direction/models/{quote(SLASHED, safe='')}").text
    assert f'data-field="balance">{money(row["balance"])}<' in page
    assert f'data-field="roi">{pct(row["roi"])}<' in page
    assert f'data-field="max_drawdown">{drawdown(row["max_drawdown"])}<' in page
    latest = log["rows"][-1]
    assert f'data-field="latest_round" href="/direction/rounds/{latest["round"]}"' in page
    assert 'data-field="latest_reasoning"' in page


def test_the_model_pages_reason_codes_read_as_words_with_the_code_in_a_tooltip(
    client: TestClient,
) -> None:
    log = client.get(f"/api/v1/direction/models/{quote(SLASHED, safe='')}/log").json()
    page = client.get(f"/direction/models/{quote(SLASHED, safe='')}").text
    for result in {r["result"] for r in log["rows"][-LOG_PAGE:]}:
        words = result.replace("_", " ")
        assert f'<span class="code" title="code: {result}">{words}</span>' in page, result


def test_agent_and_model_pages_head_with_what_their_calls_cost(client: TestClient) -> None:
    """Issue 26 item 3: each head shows its cost (the ranking issue's), the JSON's call count."""
    paths = {
        f"/weights/{SEASON}/agents/mom": f"/api/v1/weights/seasons/{SEASON}/agents/mom",
        f"/direction/models/{quote(SLASHED, safe='')}": (
            f"/api/v1/direction/models/{quote(SLASHED, safe='')}/log"
        ),
        f"/thesis/{THESIS_SEASON}/agents/{quote(THESIS_SLASHED, safe='')}": (
            f"/api/v1/thesis/{THESIS_SEASON}/agents/{quote(THESIS_SLASHED, safe='')}"
        ),
    }
    for page_path, api in paths.items():
        cost = client.get(api).json()["cost"]
        assert cost is not None, api
        page = client.get(page_path).text
        assert '<dl class="cost" data-field="cost">' in page, page_path
        assert f"<dt>Model calls</dt><dd>{cost['calls']} (" in page, page_path
        assert 'data-field="net_return"' in page, page_path
