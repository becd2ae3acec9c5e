"""Who is winning: every board's race and story, and the home page that shows them.

Over a store holding all four formats (``site_fill.fill_all``): every board's
JSON carries ``race`` (one line per agent, the leader named) and ``story``
(one sentence on the lead and luck); the arena's story rests on the p-value of
its top hit rate (D-LCK-3) and the return boards' on their no-skill null
(ST-2); the home page names each format's leader with its figure and draws one
race chart per format with one line per agent, in Chromium at 390 and 1440 px.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tradeleague.league.story import LUCK_LEVEL, RACE_POINTS, Lead, Runner, race_payload, story_text
from tradeleague.stats import top_hit_rate_p_value
from tradeleague.web.cards import label_cells
from tradeleague.web.charts import RaceLine, race_chart
from web import patient  # type: ignore[import-not-found]
from web.axe_check import serious  # type: ignore[import-not-found]
from web.site_fill import (  # type: ignore[import-not-found]
    SEASON,
    SLASHED,
    THESIS_SEASON,
    THESIS_SLASHED,
)
from web.story_checks import (  # type: ignore[import-not-found]
    Boards,
    boards,
    check_first_five,
    check_home,
    name_of,
)


def test_race_chart_draws_one_line_per_agent_baselines_lighter_leader_named() -> None:
    lines = [
        RaceLine("momentum", [100.0, 104.0, 103.0]),
        RaceLine("cash", [100.0, 100.0, 100.0], baseline=True),
        RaceLine("<b>", [100.0, 98.0, 97.0]),
    ]
    svg = race_chart(lines, 100.0, "a board", leader="momentum")
    assert svg.count("<path ") == 3
    assert svg.count('class="race-base"') == 1
    assert svg.count('class="race-lead"') == 1
    names = re.findall(r'class="chart-name [^"]*">([^<]*)<', svg)
    assert sorted(names) == ["cash", "momentum"]  # the leader and the best baseline
    assert 'class="chart-zero"' in svg  # the starting value, drawn across
    assert "<b>" not in svg  # a name is escaped
    assert "no data" in race_chart([], 100.0, "empty")


def test_race_payload_keeps_exact_values_and_thins_long_seasons() -> None:
    long = Runner("a", list(range(10_000_000, 10_000_000 + 1000)))
    body = race_payload([long, Runner("b", [10_000_000, 10_500_001], True)], 10_000_000, "a")
    assert body["start"] == "10.000000"
    assert body["leader"] == "a"
    first, second = body["lines"]
    assert len(first["values"]) == RACE_POINTS
    assert first["values"][0] == "10.000000"
    assert first["values"][-1] == "10.000999"
    assert second == {"name": "b", "baseline": True, "values": ["10.000000", "10.500001"]}


def test_story_says_who_leads_and_whether_the_lead_is_beyond_luck() -> None:
    lead = Lead(name="momentum", figure="+2.90%", agents=3, expected="+1.70%", p_value=0.4)
    assert story_text(lead) == (
        "momentum leads at +2.90%; the best of 3 agents with no skill would be expected "
        "at +1.70%: this lead is within luck (p = 0.4)."
    )
    beyond = Lead(name="m", figure="+9.00%", agents=3, expected="+1.70%", p_value=0.01)
    assert story_text(beyond).endswith("this lead is beyond luck (p = 0.01).")
    tiny = Lead(name="m", figure="+9.00%", agents=3, expected="+1.70%", p_value=0.0001)
    assert story_text(tiny).endswith("this lead is beyond luck (p < 0.001).")  # not "p = < 0.001"
    assert LUCK_LEVEL == 0.05
    early = Lead(name="m", figure="+1.00%", agents=3, expected=None, p_value=None)
    assert "too little has been played" in story_text(early)
    assert story_text(None, "No run is ranked yet.") == "No run is ranked yet."


@pytest.fixture(scope="module")
def site(filled: Any, filled_base: str) -> tuple[str, str]:
    """The site on the session's filled store (``conftest.filled``): its base URL, its scenario."""
    return filled_base, filled.scenario


def _boards(base: str, scenario: str) -> Boards:
    return boards(base, SEASON, THESIS_SEASON, scenario)


def _name(row: dict[str, Any]) -> str:
    return str(name_of(row))


def test_every_board_json_has_its_race_and_story(site: tuple[str, str]) -> None:
    """Every format's board: one race line per row, the leader named, one sentence on luck.

    The arena's sentence gives the p-value of its leader's hits as the best of N
    coins (D-LCK-3); the return boards give the expected best of N (ST-2).
    """
    base, scenario = site
    for key, (board, rows) in _boards(base, scenario).items():
        race, story = board["race"], board["story"]
        assert [line["name"] for line in race["lines"]] == [_name(r) for r in rows], key
        leader = next(r for r in rows if r["rank"] == 1)
        assert race["leader"] == _name(leader), key
        assert story.startswith(f"{_name(leader)} leads at "), (key, story)
        luck = r"this lead is (within|beyond) luck \(p (= [\d.]+|< 0\.001)\)\.$"
        assert re.search(luck, story), story
        for line in race["lines"]:
            assert line["values"][0] == race["start"], key  # every account from the start
    arena, models = _boards(base, scenario)["direction"]
    top = next(m for m in models if m["rank"] == 1)
    p = top_hit_rate_p_value(top["wins"], top["wins"] + top["losses"], len(models))
    assert f"(p = {p:.3f}".rstrip("0") in arena["story"] or f"p = {p:.3f}" in arena["story"]
    assert {line["name"]: line["baseline"] for line in arena["race"]["lines"]}["momentum"]


def test_the_leaderboard_response_model_documents_race_and_story(site: tuple[str, str]) -> None:
    base, _ = site
    schema = patient.get(f"{base}/openapi.json").json()["components"]["schemas"]
    fields = schema["LeaderboardOut"]["properties"]
    assert {"race", "story"} <= set(fields)
    assert "luck" in fields["story"]["description"]
    assert set(schema["RaceOut"]["properties"]) == {"unit", "start", "leader", "lines"}


@pytest.mark.parametrize("width", [390, 1440])
def test_home_names_each_leader_and_draws_one_race_per_format(
    site: tuple[str, str], browser: Any, width: int
) -> None:
    """Each format's section: its leader with its figure, its top rows, one line per agent."""
    base, scenario = site
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(base + "/", wait_until="load")
    check_home(page, _boards(base, scenario), width)
    context.close()


def test_every_board_page_opens_with_its_story(site: tuple[str, str], browser: Any) -> None:
    base, scenario = site
    pages = {
        "pro": f"/weights/{SEASON}",
        "direction": "/direction",
        "thesis": f"/thesis/{THESIS_SEASON}",
        "scenario": f"/scenarios/{quote(scenario, safe='')}",
    }
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    for key, path in pages.items():
        page.goto(base + path, wait_until="load")
        assert page.locator(f'[data-story="{key}"]').inner_text().count(" leads at ") == 1, path
        assert page.locator(f'figure.race[data-race="{key}"] svg path').count() >= 1, path
    context.close()


BOARDS = {
    "weights": f"/weights/{SEASON}",
    "direction": "/direction",
    "thesis": f"/thesis/{THESIS_SEASON}",
}


@pytest.mark.parametrize("width", [390, 1440])
def test_a_boards_first_five_rows_show_rank_name_return_verdict_unscrolled(
    site: tuple[str, str], browser: Any, width: int
) -> None:
    """On a phone and a desktop: rank, name, return and verdict of rows 1-5 lie in the viewport.

    At 390 px no table is wider than the viewport unless it is a card list.
    """
    base, scenario = site
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    paths = [*BOARDS.values(), f"/scenarios/{quote(scenario, safe='')}"]
    check_first_five(page, base, paths, width)
    context.close()


def test_home_and_boards_pass_axe_in_dark(site: tuple[str, str], browser: Any) -> None:
    """Axe finds no serious or critical violation, colour contrast included, in the dark scheme.

    The home page, every board, and an agent, a model and a round page (their
    charts against the benchmark); the light scheme is the browser walk's
    (``test_site_browser``: every page at both widths).
    """
    from axe_playwright_python.sync_playwright import Axe

    base, scenario = site
    axe = Axe()
    rounds = patient.get(f"{base}/api/v1/direction/rounds", params={"limit": 1}).json()["rounds"]
    heads = [
        f"/weights/{SEASON}/agents/mom",
        f"/direction/models/{quote(SLASHED, safe='')}",
        f"/thesis/{THESIS_SEASON}/agents/{quote(THESIS_SLASHED, safe='')}",
        f"/direction/rounds/{rounds[0]['round']}",
    ]
    for width in (390, 1440):
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme="dark")
        page = context.new_page()
        for path in ["/", *BOARDS.values(), f"/scenarios/{quote(scenario, safe='')}", *heads]:
            page.goto(base + path, wait_until="load")
            assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
            assert serious(axe, page, path) == [], (path, width)
        context.close()


def test_board_cells_carry_their_headings_for_the_phone_cards() -> None:
    page = (
        '<table class="board" data-board="x"><thead><tr><th scope="col">Rank</th>'
        '<th scope="col">Return <abbr>%</abbr></th></tr></thead><tbody>'
        '<tr><td data-field="rank">1</td><td class="num">2.5</td></tr>'
        '<tr><td colspan="2">none</td></tr></tbody></table>'
        "<table><thead><tr><th>A</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>"
    )
    shown = label_cells(page)
    assert '<td data-field="rank" data-label="Rank">1</td>' in shown
    assert '<td class="num" data-label="Return %">2.5</td>' in shown
    assert '<td colspan="2">none</td>' in shown  # a spanning cell has no one heading
    assert shown.endswith("<tbody><tr><td>1</td></tr></tbody></table>")  # not a board: as written


def test_the_cloud_names_what_it_draws_in_the_figure() -> None:
    """ST-2: the expected best of N is drawn and labelled; the marks are named; zero is drawn."""
    from tradeleague.web.charts import cloud_chart

    svg = cloud_chart(
        [(-2.0, -1.0, 3), (-1.0, 1.0, 5)],
        [("a", 0.5), ("b", -1.5)],
        "cloud",
        expected=("expected best of 2: +0.80%", 0.8),
    )
    assert 'class="chart-expected"' in svg
    assert ">expected best of 2: +0.80%</text>" in svg
    assert "red lines: this table's agents" in svg
    assert 'class="chart-zero"' in svg


def test_each_luck_line_says_one_clear_thing(site: tuple[str, str]) -> None:
    """The no-skill line names the expected best of N and one such season: no percentile list."""
    base, scenario = site
    for path in [BOARDS["weights"], BOARDS["thesis"], f"/scenarios/{quote(scenario, safe='')}"]:
        page = patient.get(base + path).text
        lines = re.findall(r'data-field="luckiest_of_n">(.*?)</(?:p|span)>', page, re.S)
        assert lines, path
        for line in lines:
            assert "percentile" not in line, (path, line)
            assert "99th" not in line, (path, line)


def test_one_stylesheet_of_design_tokens_light_and_dark_no_framework() -> None:
    """Issue 26 item 5: one stylesheet, colour, spacing and type as custom properties, dark by
    ``prefers-color-scheme``, nothing fetched from elsewhere (the browser walk sees no request
    leave the site)."""
    import tradeleague.web

    web = Path(tradeleague.web.__file__).parent
    base = (web / "templates" / "base.html").read_text()
    assert re.findall(r'<link rel="stylesheet" href="([^"]+)"', base) == ["/static/site.css"]
    css = (web / "static" / "site.css").read_text()
    root = css[css.index(":root {") : css.index("}", css.index(":root {"))]
    for token in ("--fg:", "--bg:", "--accent:", "--space-1:", "--font:", "--text-m:"):
        assert token in root, token
    dark = css[css.index("@media (prefers-color-scheme: dark)") :]
    assert "--fg:" in dark[: dark.index("}")]
    assert "@import" not in css
    assert "url(http" not in css
