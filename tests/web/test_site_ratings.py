"""The ratings pages: each format's models across its seasons, the JSON's figures (ST-1, ST-2).

Two weights seasons replayed into one store; ``/ratings/weights`` shows every
model's seasons, runs and intervals and every pair's verdict exactly as
``/api/v1/ratings/weights`` serves them, in a real Chromium at 390 and 1440 px
(no console error, no external request, no sideways page, axe clean).
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.clock import WallClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.plugin import get
from tradeleague.site import create_site
from tradeleague.stats.rating import Interval
from tradeleague.store import open_store
from tradeleague.terminal.ratings import VERDICT_WORDS, difference_text, interval_text, p_text
from tradeleague.testing.server import serve_asgi
from web import patient  # type: ignore[import-not-found]
from web.site_fill import fill_scenario  # type: ignore[import-not-found]

WEEKS = (("2025-06-02", "2025-06-07"), ("2025-06-09", "2025-06-14"))
ROSTER = ("cash=baseline:cash", "ew=baseline:equal-weight", "coin=baseline:coin-flip")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Iterator[str]:
    """A served site whose store holds two weights seasons of three baselines."""
    tmp = tmp_path_factory.mktemp("ratings_site")
    url = f"sqlite:///{tmp / 'site.db'}"
    for n, (start, end) in enumerate(WEEKS):
        args = ["replay", "weights", "--market", str(shared_data / "us_equities_daily"),
                "--symbols", "SPY,QQQ,TLT", "--start", start, "--end", end,
                "--db", url, "--out", str(tmp / f"{n}.json")]  # fmt: skip
        for spec in ROSTER:
            args += ["--agent", spec]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    service = ScenarioService(open_store(url), WallClock())
    with serve_asgi(create_site(service)) as base:
        yield base
    service.store.close()


def _visit(browser: Any, base: str, path: str, width: int) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    host = urlsplit(base).netloc
    page.on(
        "console", lambda m: problems.append(f"console {m.text}") if m.type == "error" else None
    )
    page.on("pageerror", lambda e: problems.append(f"pageerror {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed {r.url}"))
    page.on(
        "request",
        lambda r: (
            problems.append(f"external {r.url}")
            if not r.url.startswith("data:") and urlsplit(r.url).netloc != host
            else None
        ),
    )
    response = page.goto(base + path, wait_until="networkidle")
    assert response is not None
    assert response.status == 200, path
    return context, page, problems


def _interval(found: dict[str, Any] | None) -> str:
    if found is None:
        return "-"
    return interval_text(Interval(found["seasons"], found["mean"], found["low"], found["high"]))


def test_the_ratings_page_shows_the_json_at_both_widths(site: str, browser: Any) -> None:
    """ST-1, ST-2: each model's seasons and intervals and each pair's verdict, as the JSON says."""
    from axe_playwright_python.sync_playwright import Axe

    body = patient.get(f"{site}/api/v1/ratings/weights").json()
    rating = body["rating"]
    assert [m["seasons"] for m in rating["models"]] == [2, 2, 2]
    assert len(rating["pairs"]) == 3
    for width in (390, 1440):
        context, page, problems = _visit(browser, site, "/ratings/weights", width)
        assert problems == []
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
        rows = page.locator("table.ratings tbody tr")
        assert rows.count() == len(rating["models"])
        for row, m in zip(rows.all(), rating["models"], strict=True):
            assert row.locator('[data-field="model"]').text_content() == m["model"]
            assert row.locator('[data-field="seasons"]').text_content() == str(m["seasons"])
            assert row.locator('[data-field="runs"]').text_content() == str(m["runs"])
            assert row.locator('[data-field="vs_cash"]').text_content() == _interval(m["vs_cash"])
            shown = row.locator('[data-field="vs_benchmark"]').text_content()
            assert shown == _interval(m["vs_benchmark"])
        pairs = page.locator("table.pairs tbody tr").all()
        for row, p in zip(pairs, rating["pairs"], strict=True):
            cells = {
                f: row.locator(f'[data-field="{f}"]').text_content()
                for f in ("a", "b", "difference", "p", "p_holm", "verdict")
            }
            assert cells == {
                "a": p["a"],
                "b": p["b"],
                "difference": difference_text(p["difference"]),
                "p": p_text(p["p_value"]),
                "p_holm": p_text(p["p_holm"]),
                "verdict": VERDICT_WORDS[p["verdict"]],
            }
        violations = Axe().run(page).response["violations"]
        serious = [v["id"] for v in violations if v["impact"] in ("serious", "critical")]
        assert serious == [], width
        context.close()


def test_a_format_with_no_season_says_so_and_an_unknown_one_is_404(site: str) -> None:
    """The arena has no season in this store: its page says a rating needs one; no format: 404."""
    empty = patient.get(f"{site}/api/v1/ratings/direction").json()
    assert empty["rating"] is None
    page = patient.get(f"{site}/ratings/direction")
    assert page.status_code == 200
    assert "No finished season yet" in page.text
    assert patient.get(f"{site}/api/v1/ratings/nope").status_code == 404
    assert patient.get(f"{site}/ratings/nope", headers={"accept": "text/html"}).status_code == 404
    listed = patient.get(f"{site}/api/v1/ratings").json()["formats"]
    assert listed["weights"] == "/api/v1/ratings/weights"
    assert patient.get(f"{site}/api/v1").json()["ratings"] == "/api/v1/ratings"


def test_the_same_store_gives_the_same_bytes(site: str) -> None:
    """ST-2: the rating is seeded: the page and the JSON are the same twice."""
    for path in ("/api/v1/ratings/weights", "/ratings/weights"):
        assert patient.get(site + path).content == patient.get(site + path).content


def test_the_home_page_links_each_ratings_page(site: str) -> None:
    """A reader finds the ratings from the home page."""
    home = patient.get(f"{site}/").text
    for key in ("weights", "direction", "thesis", "scenario"):
        assert f'href="/ratings/{key}"' in home


def test_the_scenario_benchmark_rates_its_published_runs(tmp_path: Path) -> None:
    """ST-2: a scenario version is a season; each published run its account's exact return."""
    service = ScenarioService(open_store(f"sqlite:///{tmp_path / 's.db'}"), WallClock())
    try:
        scenario_id = fill_scenario(service)
        (season,) = get("scenario").part("results").seasons(service.store)
        runs = service.published(scenario_id)
        bars = service.scenario(scenario_id).bars
        first, last = bars.closes(0)["SPY"], bars.closes(len(bars) - 1)["SPY"]
    finally:
        service.store.close()
    assert season.season == scenario_id
    assert season.cash == 0
    assert season.benchmark_name == "SPY"
    assert season.benchmark == Decimal(int(last)) / Decimal(int(first)) - 1
    assert [(a.name, a.return_) for a in season.agents] == [
        (account, Decimal(r.total_return.numerator) / Decimal(r.total_return.denominator))
        for _, account, r in runs
    ]
    assert season.agents[0].return_ == 0  # the run that never traded kept its cash
