"""The visitors' call form in Chromium, without JavaScript, beside a replay-clock host (issue 17).

A host (``tradeleague run --clock replay``) plays the arena over the shared
one-minute candles up to a round; the site, on a clock inside that round,
shows the form. A visitor posts it with script disabled: the server answers
303 back to the page, which says the call is recorded and hidden, without
saying which way (D-PUB-1). The visitors' board shows nothing of it until the
host has played the round; then it shows the call scored (D-PUB-2). Every
page state is checked like the other pages: no console error, failed or
outside request, axe clean at 390 and 1440 px, no sideways page on a phone.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from host.host_process import start_host  # type: ignore[import-not-found]
from tradeleague.agents.base import AgentReply, Turn
from tradeleague.calls import Outcome
from tradeleague.clock import ReplayClock
from tradeleague.formats.direction import DirectionPreset
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.league.direction import Contestant, replay_direction
from tradeleague.league.scenario import ScenarioService
from tradeleague.market import synthetic_dataset
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.testing.server import serve_asgi
from tradeleague.web.formatting import money
from web import patient  # type: ignore[import-not-found]

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

ROUND = datetime(2025, 9, 2, 0, 30, tzinfo=UTC)
RID = "20250902T0030Z"
NAME = "Zoë <b>bull</b>"


def _host(league: Path, until: datetime) -> None:
    """Run the host in its own process (the browser's event loop holds this thread)."""
    log = league.with_name(f"host-{until:%H%M}.log")
    process = start_host(
        ["--config", str(league), "--clock", "replay", "--from", "2025-09-02T00:00Z",
         "--to", until.strftime("%Y-%m-%dT%H:%MZ")],
        log,
    )  # fmt: skip
    assert process.wait(timeout=300) == 0, log.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def hosted(
    shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("visitors")
    db = f"sqlite:///{folder / 'league.db'}"
    league = folder / "league.toml"
    league.write_text(
        f"""
[league]
db = "{db}"

[direction]
market = "{shared_data / "crypto_1m"}"

[[direction.agents]]
name = "up"
spec = "baseline:up"

[[direction.agents]]
name = "momentum"
spec = "baseline:momentum"
""",
        encoding="utf-8",
    )
    _host(league, ROUND)
    clock = ReplayClock(ROUND + timedelta(minutes=1))
    service = ScenarioService(open_store(db), clock)
    try:
        with serve_asgi(create_site(service, clock=clock)) as base:
            yield base, league
    finally:
        service.store.close()


def _watch(page: Any, base: str) -> list[str]:
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
    return problems


def _clean(browser: Any, base: str, path: str, where: str) -> None:
    """Load ``path`` (script on, for axe) at both widths: clean, accessible, no sideways page."""
    from axe_playwright_python.sync_playwright import Axe

    for width in (390, 1440):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        problems = _watch(page, base)
        response = page.goto(base + path, wait_until="networkidle")
        assert response is not None
        assert response.status == 200, (where, response.status)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width + 1, (where, width, scroll)
        bad = [
            v["id"]
            for v in Axe().run(page).response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert bad == [], (where, width, bad)
        assert problems == [], (where, problems)
        context.close()


def test_visitor_call_form_without_script_and_the_visitors_board(
    hosted: tuple[str, Path], browser: Any
) -> None:
    """D-PUB-2, D-PUB-1: the form posts without script; the call hides until the round is played.

    The page shows the form for the round the arena plays; posting it with
    script disabled lands back on the page with the notice (no direction in
    it or in the address); the same name again is refused there with the
    reason (409). The visitors' board and the name's log show nothing until
    the host has played the round; then the board ranks the call, its numbers
    those of ``/api/v1/direction/visitors``.
    """
    base, league = hosted
    _clean(browser, base, "/direction", "the form")

    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 900})
    page = context.new_page()
    problems = _watch(page, base)
    page.goto(base + "/direction", wait_until="load")
    form = page.locator("form[action='/direction/calls']")
    assert form.get_attribute("data-round") == RID
    assert "00:34:30" in form.inner_text()
    page.fill("#visitor", NAME)
    page.check("input[name=direction][value=down]")
    with page.expect_navigation():
        page.click("text=Log my call")
    assert urlsplit(page.url).path == "/direction"
    assert urlsplit(page.url).query == f"called={RID}"
    notice = page.locator("[data-field=call-recorded]").inner_text()
    assert f"Your call on round {RID} is recorded" in notice
    assert "hidden until the round closes" in notice
    assert "down" not in notice.lower()
    assert problems == []

    page.fill("#visitor", NAME)
    page.check("input[name=direction][value=up]")
    with page.expect_navigation() as navigation:
        page.click("text=Log my call")
    assert navigation.value.status == 409
    problem = page.locator("[data-field=call-problem]").inner_text()
    assert "has already called" in problem
    assert NAME in problem  # shown as typed, escaped once
    assert page.input_value("#visitor") == NAME
    assert [p for p in problems if "status of 409" not in p] == []  # the refusal's own status
    context.close()
    _clean(browser, base, f"/direction?called={RID}", "the notice")

    # Hidden until the round is played: not on the board, no log, not on any page.
    served = patient.get(f"{base}/api/v1/direction/visitors").json()
    assert served["visitors"] == []
    assert "No visitor's call has been settled" in patient.get(f"{base}/direction/visitors").text
    account = f"visitor:{NAME}"
    assert patient.get(f"{base}/api/v1/direction/models/{account}/log").status_code == 404
    _clean(browser, base, "/direction/visitors", "the empty visitors' board")

    _host(league, ROUND + timedelta(minutes=10))

    served = patient.get(f"{base}/api/v1/direction/visitors").json()
    (row,) = served["visitors"]
    assert row["name"] == "visitor:Zoë &lt;b&gt;bull&lt;/b&gt;"  # JSON: escaped, as all user text
    assert row["settled"] + sum(row["skips"].values()) == 1
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.goto(base + "/direction/visitors", wait_until="load")
    tr = page.locator("table[data-board=visitors] tbody tr")
    assert tr.count() == 1
    assert tr.get_attribute("data-visitor") == account
    assert tr.locator("[data-field=balance]").inner_text() == money(row["balance"])
    assert tr.locator("[data-field=roi]").inner_text() == row["roi"]
    assert tr.locator("[data-field=settled]").inner_text() == str(row["settled"])
    page.click(f"text={account}")
    page.wait_for_load_state("load")
    assert "down" in page.inner_text("main")  # the call shows, now that its round is over
    context.close()
    _clean(browser, base, "/direction/visitors", "the visitors' board")


class _Up:
    """A model that always calls up."""

    name = "up"
    kind = "scripted"

    async def answer(self, turn: Turn) -> AgentReply:
        return AgentReply(outcome=Outcome.ANSWERED, text='{"direction": "up"}', latency_ms=100)


@pytest.fixture
def open_round(tmp_path: Path) -> Iterator[str]:
    """A site whose arena has played one round (synthetic candles), its clock in the next."""
    preset = DirectionPreset()
    candles = synthetic_dataset(
        1, 400, seed=7, bar_size=timedelta(minutes=1), calendar="24/7", symbols=[preset.symbol]
    )
    start = candles[preset.symbol].last - timedelta(minutes=20)
    store = open_store(f"sqlite:///{tmp_path / 'site.db'}")
    roster = [Contestant(entrant=Entrant(name="up", provider="p", tier="-", model="m"),
                         agent=_Up())]  # fmt: skip
    # the browser's event loop may hold this thread: the replay runs in one of its own
    played = threading.Thread(
        target=lambda: asyncio.run(
            replay_direction(store, candles, roster, start=start, end=start + timedelta(minutes=5))
        )
    )
    played.start()
    played.join(120)
    clock = ReplayClock(start + timedelta(minutes=6))
    try:
        with serve_asgi(create_site(ScenarioService(store, clock), clock=clock)) as base:
            yield base
    finally:
        store.close()


def test_visitor_call_form_refuses_a_post_without_its_token(open_round: str) -> None:
    """A post without the page's token, with a forged one, or from another site: 403, no call."""
    base = open_round
    with httpx.Client(base_url=base, follow_redirects=False) as client:
        page = client.get("/direction")
        token = page.cookies.get("tl_form_csrf")
        assert token is not None
        assert f'value="{token}"' in page.text  # the form carries the cookie's token
        assert client.get("/direction").cookies.get("tl_form_csrf") == token  # kept while valid
        form = {"visitor": "mallory", "direction": "up"}
        cases = [
            ({**form}, token, {}),  # no token in the form
            ({**form, "csrf_token": token}, None, {}),  # no cookie
            ({**form, "csrf_token": "x.y"}, "x.y", {}),  # forged, cookie and form alike
            ({**form, "csrf_token": token + "x"}, token, {}),  # the two differ
            ({**form, "csrf_token": token}, token, {"origin": "https://evil.example"}),
            ({**form, "csrf_token": token}, token, {"sec-fetch-site": "cross-site"}),
        ]
        for data, cookie, headers in cases:
            client.cookies.clear()
            if cookie is not None:
                client.cookies.set("tl_form_csrf", cookie)
            response = client.post("/direction/calls", data=data, headers=headers)
            assert response.status_code == 403, (data, cookie, headers)
            assert "another site" in response.text
        client.cookies.set("tl_form_csrf", token)
        garbage = client.post(
            "/direction/calls",
            content=b"\xff\xfe%%%=&=" * 1000,
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert garbage.status_code == 403  # an unreadable form carries no token
        assert patient.get(f"{base}/api/v1/direction/rounds/current").json()["status"] == "finished"
        bad_name = client.post(
            "/direction/calls", data={"visitor": "\u200b", "direction": "up", "csrf_token": token}
        )
        assert bad_name.status_code == 422
        assert "Give a name" in bad_name.text
        taken = client.post("/direction/calls", data={**form, "csrf_token": token})
        assert taken.status_code == 303
        assert taken.headers["location"].startswith("/direction?called=")
        again = client.post("/direction/calls", data={**form, "csrf_token": token})
        assert again.status_code == 409
