"""Every page a person reads passes one formatting layer (``web.formatting``); JSON stays exact.

A crawl of a site filled with all four formats follows every link from the
home page and fails on a raw JSON time (``.000000Z``), an ISO time outside a
``<time datetime>``, a money figure with more than two decimals (``$1.234``,
an exact ``10000.000000``, a six-decimal amount in a USD column) or a raw
fraction; the JSON behind the same pages still serves the exact values.
"""

from __future__ import annotations

import html
import re
from collections import deque
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from fastapi.testclient import TestClient
from markupsafe import Markup

from tradeleague.web.formatting import change, code, money, pct, prose, qty, readable, when
from web.site_fill import SEASON, filled_client  # type: ignore[import-not-found]

SKIPPED = ("/api", "/static", "/docs", "/redoc", "/openapi", "/account", "/metrics", "/mcp")
"""Paths that are not pages for reading (JSON, assets, forms behind a sign-in)."""

RAW_TIME = re.compile(r"\.\d{6}Z|\d{4}-\d\d-\d\dT\d\d:\d\d")
LONG_MONEY = re.compile(r"\$[\d,]*\.\d{3,}|\b\d+\.0{6}\b|\b\d+\.\d{6} USD")
RAW_FRACTION = re.compile(r"\b\d+\.\d{9,}")
USD_CELL = re.compile(r'<td[^>]* data-label="[^"]*(?:USD|\$)[^"]*">([^<]*)</td>')


def test_money_percent_and_time_read_as_people_write_them() -> None:
    assert money("9759.244394") == "$9,759.24"
    assert money("-1000") == "-$1,000.00"
    assert money("0.005") == "$0.01"  # half up, to the cent
    assert pct("2.9") == "+2.90%"
    assert pct("-0.474") == "-0.47%"
    assert change("10000.000000", "10290.000000") == "+2.90%"
    shown = when("2025-09-02T15:00:00.000000Z")
    assert shown == Markup(
        '<time datetime="2025-09-02T15:00:00.000000Z">2 Sep 2025 15:00 UTC</time>'
    )
    assert when("2025-09-02") == Markup('<time datetime="2025-09-02">2 Sep 2025</time>')
    assert str(when("<b>")) == "&lt;b&gt;"
    assert qty("1.500000") == "1.5"
    assert code("confidence_gate") == Markup(
        '<span class="code" title="code: confidence_gate">confidence gate</span>'
    )
    assert code(None) == ""
    assert prose("accounts reset to 50000.000000 USD at 2024-01-02T00:00:00.000000Z.") == (
        "accounts reset to $50,000.00 at 2 Jan 2024 00:00 UTC."
    )


def test_the_template_finalizer_formats_by_shape_and_leaves_the_rest() -> None:
    assert readable("10073.277021") == "$10,073.28"
    assert isinstance(readable("2024-02-05T15:00:00.000000Z"), Markup)
    assert readable(0.00029391801705309646) == "0.0003"
    assert readable("0.6860") == "0.6860"  # a p-value, four places, as served
    assert readable("0.013748069129765903") == "0.0137"
    assert readable(7) == 7
    assert readable("momentum") == "momentum"
    assert readable(Markup("<b>1.500000</b>")) == Markup("<b>1.500000</b>")


@pytest.fixture(scope="module")
def client(filled: Any) -> Iterator[TestClient]:
    yield from filled_client(filled.service)


def _visible(page: str) -> str:
    """Return the page's text as read: no script, no tag, no ``<time datetime>`` value."""
    page = re.sub(r"<script\b.*?</script>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _links(path: str, page: str) -> list[str]:
    found = []
    for href in re.findall(r'href="([^"#]+)', page):
        target = urlsplit(urljoin("http://site" + path, html.unescape(href)))
        if target.netloc == "site" and not target.path.startswith(SKIPPED):
            found.append(target.path + (f"?{target.query}" if target.query else ""))
    return found


def test_no_page_shows_a_raw_time_or_money_past_the_cent(client: TestClient) -> None:
    """Crawl every page linked from home: times as people write them, money to the cent."""
    seen: set[str] = set()
    queue = deque(["/"])
    problems: list[str] = []
    while queue and len(seen) < 400:
        path = queue.popleft()
        if path in seen:
            continue
        seen.add(path)
        answer = client.get(path)
        assert answer.status_code == 200, path
        if "text/html" not in answer.headers["content-type"]:
            continue
        text = _visible(answer.text)
        for name, pattern in (("time", RAW_TIME), ("money", LONG_MONEY), ("raw", RAW_FRACTION)):
            problems += [f"{path}: {name} {m!r}" for m in pattern.findall(text)[:3]]
        if re.search(r'="[^"<>]*<time', answer.text):  # a formatted time inside an attribute
            problems.append(f"{path}: a <time> inside an attribute")
        for cell in USD_CELL.findall(answer.text):
            if re.search(r"\.\d{3,}", cell):
                problems.append(f"{path}: USD cell {cell!r}")
        queue.extend(p for p in _links(path, answer.text) if p not in seen)
    assert len(seen) > 20, sorted(seen)  # every format's board, agents and rounds were read
    assert problems == [], problems[:20]


def test_the_json_behind_the_pages_keeps_exact_values(client: TestClient) -> None:
    table = client.get(f"/api/v1/weights/seasons/{SEASON}/tables/pro").json()
    assert all(re.fullmatch(r"\d+\.\d{6}", r["value"]) for r in table["rows"])
    season = client.get(f"/api/v1/weights/seasons/{SEASON}").json()
    assert season["start"].endswith(".000000Z")
    page = client.get(f"/weights/{SEASON}").text
    assert f'<time datetime="{season["start"]}">' in page
