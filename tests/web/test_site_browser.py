"""The public site in a real headless Chromium over a server filled by replays of all formats.

Each page loads with no console error, no failed request and no request to
another host; board numbers equal the JSON API's; model text shows escaped
exactly once; axe finds no serious or critical violation; pages work at 390 px
and 1440 px.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from markupsafe import Markup

from tradeleague.stats import verdict_words
from tradeleague.web.formatting import code, drawdown, money, pct, qty, readable
from web import patient  # type: ignore[import-not-found]
from web.axe_check import serious as _serious  # type: ignore[import-not-found]
from web.site_fill import (  # type: ignore[import-not-found]
    DOCS_DRAWN,
    SEASON,
    SLASHED,
    THESIS_SEASON,
    THESIS_SLASHED,
    WEIGHTS_SLASHED,
    XSS,
)


@pytest.fixture(scope="module")
def site(filled: Any, filled_base: str) -> tuple[str, str, list[str]]:
    """The site on the session's filled store: its base URL, its scenario, every page."""
    return filled_base, filled.scenario, filled.pages


_WIDE = (
    "[...document.querySelectorAll('table')].filter(t => getComputedStyle(t).display === "
    "'table' && t.getBoundingClientRect().width > innerWidth).map(t => t.className)"
)
"""The tables laid out as tables (not a card list) wider than the viewport."""


class _Tab:
    """One page of a browser context at one width, watched for trouble across navigations."""

    def __init__(self, browser: Any, base: str, width: int) -> None:
        self.context = browser.new_context(
            viewport={"width": width, "height": 900}, color_scheme="light"
        )
        self.page = self.context.new_page()
        self.problems: list[str] = []
        host = urlsplit(base).netloc
        page, problems = self.page, self.problems
        page.on(
            "console",
            lambda m: problems.append(f"console {m.text}") if m.type == "error" else None,
        )
        page.on("pageerror", lambda e: problems.append(f"pageerror {e}"))
        page.on("requestfailed", lambda r: problems.append(f"failed {r.url}"))

        def outside(request: Any) -> None:
            if (
                not request.url.startswith(("data:", f"blob:{base}"))
                and urlsplit(request.url).netloc != host
            ):
                problems.append(f"external {request.url}")

        page.on("request", outside)

    def open(self, url: str) -> Any:
        """Load ``url`` (every stylesheet, script and image with it); return the page.

        What went wrong since the last load is forgotten: ``problems`` is this page's.
        """
        self.problems.clear()
        response = self.page.goto(url, wait_until="load")
        assert response is not None, url
        assert response.status == 200, url
        return self.page


@pytest.fixture(scope="module")
def tab(site: tuple[str, str, list[str]], browser: Any) -> Iterator[_Tab]:
    """One desktop tab (1440 px) the tests below load their pages in, one after another."""
    shared = _Tab(browser, site[0], 1440)
    yield shared
    shared.context.close()


def test_every_page_loads_clean_accessible_at_both_widths(
    site: tuple[str, str, list[str]], browser: Any
) -> None:
    """No console error, failed or external request; axe clean; no sideways page at 390 px.

    At 390 px no table is wider than the viewport unless it is a card list (issue 26).

    One tab a width, each page loaded in each: the offline API docs too, each in
    English, checked once Swagger UI and ReDoc have drawn the API.
    """
    from axe_playwright_python.sync_playwright import Axe

    base, _, every = site
    axe = Axe()
    for width in (390, 1440):
        tab = _Tab(browser, base, width)
        for path in [*every, *DOCS_DRAWN]:
            page = tab.open(base + path)
            if path in DOCS_DRAWN:
                page.wait_for_selector(DOCS_DRAWN[path], timeout=30_000)
            assert page.evaluate("document.documentElement.lang") == "en", path
            scroll = page.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width + 1, (path, width, scroll)
            if width == 390 and path not in DOCS_DRAWN:  # a phone: tables fit or are cards
                assert page.evaluate(_WIDE) == [], path
            # axe at both widths: the phone layout must be accessible too.
            assert _serious(axe, page, path) == [], (path, width)
            assert tab.problems == [], (path, width, tab.problems)
        tab.context.close()


def _cloud_shows(page: Any, key: str, cloud: dict[str, Any], rows: int) -> None:
    """The baseline cloud ``key``: one bar per bin, one mark per row, its tables the API's."""
    figure = page.locator(f'figure.cloud[data-cloud="{key}"]')
    assert figure.locator("svg .chart-bar").count() == len(cloud["bins"])
    assert figure.locator("svg .chart-mark").count() == len(cloud["marks"]) == rows
    marks = page.locator(f'table.cloud-marks[data-cloud="{key}"]')
    below = marks.locator('[data-field="below"]').all_text_contents()  # inside <details>
    assert below == [m["below"] for m in cloud["marks"]]
    shown = marks.locator('[data-field="mark_return"]').all_text_contents()
    assert shown == [m["season_return"] for m in cloud["marks"]]
    counts = page.locator(f'table.cloud-bins[data-cloud="{key}"] td:nth-child(3)')
    assert counts.all_text_contents() == [str(b["agents"]) for b in cloud["bins"]]


def test_board_numbers_equal_the_json_api(site: tuple[str, str, list[str]], tab: _Tab) -> None:
    """Each board row shows value, return, drawdown and trades as /api/v1 serves them.

    Through the one formatting layer (``web.formatting.readable``): money to the cent.
    """
    base, scenario, _ = site
    table = patient.get(f"{base}/api/v1/weights/seasons/{SEASON}/tables/pro").json()
    page = tab.open(base + f"/weights/{SEASON}")
    for row in table["rows"]:
        tr = page.locator(f'table[data-division="pro"] tr[data-agent="{row["agent"]}"]')
        for field in ("value", "season_return", "trades"):
            assert tr.locator(f'[data-field="{field}"]').inner_text() == str(readable(row[field]))
        shown_dd = tr.locator('[data-field="max_drawdown"]').inner_text()
        assert shown_dd == drawdown(row["max_drawdown"])  # a fall, one sign (W-SCO-2)
    _cloud_shows(page, "pro", table["baseline_cloud"], len(table["rows"]))
    board = patient.get(f"{base}/api/v1/direction/boards").json()
    page = tab.open(base + "/direction")
    cells = page.locator('table[data-board="models"] [data-field="balance"]').all_inner_texts()
    assert cells == [money(m["balance"]) for m in board["models"]]
    for field in ("roi", "settled"):
        shown = page.locator(f'table[data-board="models"] [data-field="{field}"]')
        assert shown.all_inner_texts() == [str(m[field]) for m in board["models"]], field
    falls = page.locator('table[data-board="models"] [data-field="max_drawdown"]')
    assert falls.all_inner_texts() == [drawdown(m["max_drawdown"]) for m in board["models"]]
    lb = patient.get(f"{base}/api/v1/leaderboard", params={"scenario": scenario}).json()
    page = tab.open(base + f"/scenarios/{scenario}")
    assert len(lb["entries"]) == 2
    for entry in lb["entries"]:
        tr = page.locator(f'table[data-board="scenario"] tr[data-run="{entry["run_id"]}"]')

        def cell(field: str, row: Any = tr) -> str:
            text: str = row.locator(f'[data-field="{field}"]').inner_text()
            return text

        for field in ("steps", "trades"):
            assert cell(field) == str(readable(entry[field])), field
        assert cell("return") == pct(entry["return"], fraction=True)  # a fraction, in percent
        assert cell("max_drawdown") == drawdown(entry["max_drawdown"], fraction=True)
        assert cell("final_equity") == money(entry["final_equity"])  # to the cent
        for side, baseline in (("vs_cash", "cash"), ("vs_buy_and_hold", "buy-and-hold")):
            verdict = entry[side]
            words = verdict_words(verdict["outcome"], baseline)  # never a bare yes (ST-2)
            assert cell(side) == f"{words} (p {verdict['p_value']})"
    luck = lb["significance"]["luckiest_of_n"]
    line = page.locator('[data-field="luckiest_of_n"]').inner_text()
    assert f"Luckiest of {luck['agents']}:" in line
    assert f"return {luck['expected_best']}%" in line
    bins = page.locator('figure.cloud[data-cloud="scenario"] svg .chart-bar')
    assert bins.count() == len(lb["baseline_cloud"]["bins"])
    # Ranked by return: the return column says so, and no second "return" column shows it again.
    heads = page.locator('table[data-board="scenario"] thead th').all_inner_texts()
    assert [h for h in heads if "return" in h.lower()] == ["Return (ranked by)"], heads
    assert page.locator('table[data-board="scenario"] [data-field="value"]').count() == 0
    # Ranked by another metric: its own column, named and marked, its values the API's.
    by = patient.get(
        f"{base}/api/v1/leaderboard", params={"scenario": scenario, "metric": "sharpe"}
    )
    page = tab.open(base + f"/scenarios/{scenario}?metric=sharpe")
    heads = page.locator('table[data-board="scenario"] thead th').all_inner_texts()
    assert "Sharpe (ranked by)" in heads
    assert [h for h in heads if "return" in h.lower()] == ["Return"], heads
    values = page.locator('table[data-board="scenario"] [data-field="value"]').all_inner_texts()
    entries = by.json()["entries"]
    assert values == [("–" if e["value"] is None else str(readable(e["value"]))) for e in entries]


def test_run_page_and_model_log_match_the_json_api(
    site: tuple[str, str, list[str]], tab: _Tab
) -> None:
    """A published run's equity table and trades, and a model's latencies, equal /api/v1's."""
    base, scenario, _ = site
    lb = patient.get(f"{base}/api/v1/leaderboard", params={"scenario": scenario}).json()
    traded = next(e for e in lb["entries"] if e["trades"])
    run = patient.get(f"{base}/api/v1/runs/{traded['run_id']}/public").json()
    assert run["trades"] == len(run["fills"]) == traded["trades"]
    assert len(run["equity"]) == run["steps"] + 1
    page = tab.open(base + f"/runs/{traded['run_id']}")
    assert page.locator("svg.chart:not(.scatter)").count() == 1  # the equity line
    # the run's rounds against the benchmark's, with its fit: a point each
    assert page.locator("svg.scatter circle.chart-point").count() == len(run["scatter"])
    shown = page.locator("table.equity tbody td.num").all_text_contents()  # inside <details>
    assert shown == [money(p["equity"]) for p in run["equity"]]  # to the cent
    fills = page.locator("table.fills tbody tr").all()
    assert len(fills) == len(run["fills"])
    cells = fills[0].locator("td").all_inner_texts()
    assert cells[1:3] == [run["fills"][0]["symbol"], run["fills"][0]["side"]]
    assert cells[4] == money(run["fills"][0]["price"])
    assert page.locator('[data-field="trades"]').inner_text() == str(run["trades"])

    log = patient.get(f"{base}/api/v1/direction/models/{quote(XSS, safe='')}/log").json()
    assert log["rows"]
    assert all(r["latency_ms"] == 1_500 for r in log["rows"])
    page = tab.open(base + f"/direction/models/{quote(XSS, safe='')}")
    latencies = page.locator('table.log [data-field="latency_ms"]').all_inner_texts()
    assert latencies == [str(r["latency_ms"]) for r in reversed(log["rows"])]  # newest first


def test_names_with_a_slash_round_trip_through_json_and_pages(
    site: tuple[str, str, list[str]], tab: _Tab
) -> None:
    """A model or agent named with ``/`` is reached from its board's link and by the JSON API."""
    base, _, _ = site
    log = patient.get(f"{base}/api/v1/direction/models/{quote(SLASHED, safe='')}/log")
    assert log.status_code == 200
    assert log.json()["model"]["name"] == SLASHED
    page = tab.open(base + "/direction")
    page.locator(f'table[data-board="models"] tr[data-model="{SLASHED}"] a').click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == f"Model {SLASHED}"
    assert tab.problems == []

    agent = patient.get(
        f"{base}/api/v1/weights/seasons/{SEASON}/agents/{quote(WEIGHTS_SLASHED, safe='')}"
    )
    assert agent.status_code == 200
    assert agent.json()["agent"]["name"] == WEIGHTS_SLASHED
    page = tab.open(base + f"/weights/{SEASON}")
    page.locator(f'tr[data-agent="{WEIGHTS_SLASHED}"] a').click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == f"Agent {WEIGHTS_SLASHED}"
    assert tab.problems == []


def test_script_names_and_rationales_show_as_text_escaped_once(
    site: tuple[str, str, list[str]], tab: _Tab
) -> None:
    """A name and rationale of <script>alert(1)</script> read as exactly that text."""
    base, _, _ = site
    page = tab.open(base + f"/direction/models/{quote(XSS, safe='')}")
    dialogs: list[str] = []
    page.on("dialog", lambda d: dialogs.append(d.message))
    assert page.locator("h1").inner_text() == f"Model {XSS}"
    cells = page.locator("table.log td.modeltext").all_inner_texts()
    assert cells
    assert all(c == XSS for c in cells)
    assert page.locator("script").count() == 0
    assert dialogs == []
    assert tab.problems == []


BOARD_FIELDS = (
    "rank", "return", "max_drawdown", "sharpe", "sortino", "win_rate", "exposure", "trades",
    "closed_trades", "decisions",
)  # fmt: skip
DECISION_FIELDS = (
    "action", "symbol", "status", "reason_code", "quantity", "price", "fee", "confidence",
    "thesis", "invalidation", "invalidation_price", "rationale",
)  # fmt: skip


def _shown(value: Any) -> str:
    """What a page shows for a JSON value: model text unescaped once, nothing for null.

    A value passes the one formatting layer (``readable``: money to the cent, times
    as people write them); a quantity is trimmed (``qty``).
    """
    if value is None:
        return ""
    shown = readable(value)
    return html.unescape(shown.striptags() if isinstance(shown, Markup) else str(shown))


def test_thesis_board_numbers_equal_the_json_api(
    site: tuple[str, str, list[str]], tab: _Tab
) -> None:
    """T-SCO-1, ST-1, ST-2: every metric, count and verdict on the board is /api/v1/thesis's."""
    base, _, pages = site
    board = patient.get(f"{base}/api/v1/thesis/{THESIS_SEASON}").json()
    names = [r["name"] for r in board["rows"]]
    assert sorted(names) == sorted(["cash", "hold", "coin_flip", THESIS_SLASHED, "mirror"])
    agent_pages = [p for p in pages if p.startswith(f"/thesis/{THESIS_SEASON}/agents/")]
    assert len(agent_pages) == len(names)  # every agent page is walked with axe at both widths
    page = tab.open(base + f"/thesis/{THESIS_SEASON}")
    assert page.locator("table.board tbody tr").count() == len(names)
    for row in board["rows"]:
        tr = page.locator(f'table.board tr[data-agent="{row["name"]}"]')
        assert tr.locator('[data-field="name"] a').inner_text() == row["name"]
        for field in BOARD_FIELDS:
            want = "–" if row[field] is None else str(row[field])
            if field == "max_drawdown":  # a fall, one sign on every page (W-SCO-2)
                want = drawdown(row[field])
            assert tr.locator(f'[data-field="{field}"]').inner_text() == want, (row["name"], field)
        for field, baseline in (("vs_cash", "cash"), ("vs_spy", "holding SPY")):
            want = verdict_words(row[field], baseline)  # with its direction, never a bare yes
            assert tr.locator(f'[data-field="{field}"]').inner_text() == want, (row["name"], field)
        unranked = tr.locator('[data-field="unranked"]').inner_text()
        assert unranked == (row["unranked_text"] or ""), row["name"]
    luck = page.locator('[data-field="luckiest_of_n"]').inner_text()
    # ST-2: the season's no-skill null, from its record (a synthetic tape has no folders)
    null = board["luckiest_of_n"]
    assert null is not None
    assert f": {null['expected_best_return']}%;" in luck
    assert board["rows"][0]["luckiest_of_n"] == null["expected_best_return"]
    assert board["baseline_cloud"]["agents"] == null["simulations"]
    _cloud_shows(page, "thesis", board["baseline_cloud"], len(names))
    # The slashed name's link reaches its page.
    page.locator(f'table.board tr[data-agent="{THESIS_SLASHED}"] a').click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == THESIS_SLASHED
    assert tab.problems == []


_CELLS = """rows => rows.map(r => Object.fromEntries([
    ["data-cycle", r.getAttribute("data-cycle")],
    ...[...r.querySelectorAll("[data-field]")].map(c => [c.dataset.field, c.innerText]),
]))"""
"""Each row's cells as the reader sees them (``innerText``, as Playwright's ``inner_text``),
by their ``data-field``, with the row's cycle: a table read in one call."""


def test_thesis_agent_pages_show_every_decision_as_the_json_api(
    site: tuple[str, str, list[str]], tab: _Tab
) -> None:
    """T-CYC-10, T-CYC-9, T-MON-1: each agent page shows every decision, thesis, level, reasoning.

    Row for row and cell for cell as ``/api/v1/thesis/.../agents/...`` serves them; a
    correction round is attempt 2; the monitor's closes equal the JSON's; model text
    (script tags) reads as text, escaped exactly once, and runs nothing.
    """
    base, _, _ = site
    board = patient.get(f"{base}/api/v1/thesis/{THESIS_SEASON}").json()
    dialogs: list[str] = []
    tab.page.on("dialog", lambda d: dialogs.append(d.message))
    for name in [r["name"] for r in board["rows"]]:
        path = f"{THESIS_SEASON}/agents/{quote(name, safe='')}"
        data = patient.get(f"{base}/api/v1/thesis/{path}").json()
        page = tab.open(base + f"/thesis/{path}")
        rank = "–" if data["rank"] is None else str(data["rank"])
        assert page.locator('[data-field="rank"]').first.inner_text() == rank
        rows = page.locator("table.decisions tbody tr").evaluate_all(_CELLS)  # one read a table
        expected = [(e, d) for e in data["entries"] for d in (e["decisions"] or [None])]
        assert len(rows) == len(expected), name
        for tr, (entry, decision) in zip(rows, expected, strict=True):
            assert tr["data-cycle"] == entry["cycle"]
            assert tr["attempt"] == str(entry["attempt"])
            assert tr["reasoning"] == _shown(entry["reasoning"]), name
            if decision is None:
                assert tr["outcome"].startswith(entry["answer_reason"] or "no decisions")
                continue
            for field in DECISION_FIELDS:
                want = decision[field]
                if field == "quantity" and want:
                    want = qty(want)
                elif field == "reason_code":  # words, the code in a tooltip
                    want = code(want).striptags()
                else:
                    want = _shown(want)
                assert tr[field] == want, (name, entry["cycle"], field)
        closes = page.locator("table.closes tbody tr").evaluate_all(_CELLS)
        assert len(closes) == len(data["monitor_closes"])
        for tr, close in zip(closes, data["monitor_closes"], strict=True):
            for field in ("time", "symbol", "price", "level", "fee"):
                assert tr[field] == _shown(close[field])
            assert tr["quantity"] == qty(close["quantity"])
        assert page.locator("script").count() == 0
        assert dialogs == []
        assert tab.problems == []
    model = patient.get(
        f"{base}/api/v1/thesis/{THESIS_SEASON}/agents/{quote(THESIS_SLASHED, safe='')}"
    ).json()
    first = model["entries"][0]
    assert [d["status"] for d in first["decisions"]] == ["executed", "rejected"]
    assert model["entries"][1]["attempt"] == 2  # the correction round
    assert _shown(first["decisions"][0]["thesis"]) == f"Thesis {XSS}"
    assert {c["symbol"] for c in model["monitor_closes"]} == {"ETH", "SOL"}
