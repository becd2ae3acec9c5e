"""A site with nothing played yet: each format page says so; an unknown id is a 404 page.

Issue 13: format pages that have no season yet say so, and a page for an
unknown id is a 404 page (HTML), never the JSON error body.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tradeleague.clock import WallClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store

EMPTY = {
    "/weights": "No season yet: this site has not run the weights league.",
    "/direction": "No season yet: this site has not run the direction arena.",
    "/direction/visitors": "No season yet: this site has not run the direction arena",
    "/scenarios": "No scenario yet.",
    "/thesis": "No season yet.",
}
UNKNOWN = {
    "/weights/NOPE": "No weights season &#39;NOPE&#39;.",
    "/weights/NOPE/market": "No weights season &#39;NOPE&#39;.",
    "/weights/NOPE/agents/x": "No weights season &#39;NOPE&#39;.",
    "/direction/models/nobody": "No season.",
    "/direction/rounds/xyz": "No season.",
    # a page names a scenario by id or name, as the API does (issue 29)
    "/scenarios/nope": "There is no scenario with the id or name &#39;nope&#39;; "
    "GET /api/v1/scenarios lists them.",
    "/runs/nope": "There is no published run &#39;nope&#39;.",
    "/thesis/nope": "No thesis season &#39;nope&#39;.",
    "/thesis/nope/agents/x": "No thesis season &#39;nope&#39;.",
    "/methodology/nope": "No format &#39;nope&#39;.",
}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    store = open_store(f"sqlite:///{tmp_path / 'empty.db'}")
    with TestClient(create_site(ScenarioService(store, WallClock()))) as c:
        yield c
    store.close()


def test_format_pages_with_no_season_say_so(client: TestClient) -> None:
    for path, line in EMPTY.items():
        page = client.get(path)
        assert page.status_code == 200, path
        assert page.headers["content-type"].startswith("text/html"), path
        assert line in page.text, path
    home = client.get("/").text
    assert home.count("No season yet.") == 3  # weights, the arena and the thesis league
    assert "No scenario yet." in home


def test_a_page_for_an_unknown_id_is_a_404_page_not_json(client: TestClient) -> None:
    for path, reason in UNKNOWN.items():
        page = client.get(path)
        assert page.status_code == 404, path
        assert page.headers["content-type"].startswith("text/html"), path
        assert f"<p>There is nothing here. {reason}</p>" in page.text, path
        assert '<a href="/">Back to the formats</a>' in page.text, path


def test_an_unknown_path_is_the_404_page_for_a_browser_and_json_for_a_program(
    client: TestClient,
) -> None:
    browser = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    page = client.get("/about", headers=browser)
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "<p>There is nothing here. No page at /about.</p>" in page.text
    assert 'href="/weights"' in page.text  # the site's navigation
    for path in ("/api/v1/nope", "/mcp/nope", "/openapi.json/x"):
        asked = client.get(path, headers=browser)
        assert asked.status_code == 404, path
        assert asked.json()["error"]["code"] == "not_found", path
    program = client.get("/about", headers={"accept": "application/json"})
    assert program.status_code == 404
    assert program.json()["error"]["code"] == "not_found"
    hostile = client.get("/" + "<b>" * 300, headers=browser)
    assert hostile.status_code == 404
    assert "<b>" not in hostile.text
