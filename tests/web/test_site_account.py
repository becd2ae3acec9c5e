"""The account pages in Chromium: sign in without script, an agent, a prompt, API keys.

Same checks as every other page: no console error, failed or external request,
axe clean at 390 and 1440 px, no sideways page on a phone, and owner text shown
escaped exactly once.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from tradeleague.clock import ReplayClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.weights import ops
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.testing.server import serve_asgi

XSS_NAME = '<b>x</b>&amp;"'
XSS_PROMPT = "<script>alert(1)</script> & hold"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('account') / 'site.db'}"
    clock = ReplayClock(datetime(2026, 10, 6, 9, tzinfo=UTC))
    store = open_store(url)
    ops.create_season(
        store,
        clock,
        start=datetime(2026, 10, 5, tzinfo=UTC),
        symbols=["SPY", "QQQ"],
        decimals={"SPY": 8, "QQQ": 8},
        source="fixture",
        season_id="autumn",
    )
    with serve_asgi(create_site(ScenarioService(store, clock), clock=clock)) as served:
        yield served
    store.close()


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


def _clean(page: Any, width: int, where: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    scroll = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > "
        "window.innerWidth + 1).map(e => e.tagName + '.' + e.className + ':' + "
        "e.textContent.slice(0, 40)).slice(0, 5)"
    )
    assert scroll <= width + 1, (where, width, scroll, wide)
    results = Axe().run(page)
    bad = [
        v["id"] for v in results.response["violations"] if v["impact"] in ("serious", "critical")
    ]
    assert bad == [], (where, width, bad)


def test_account_pages_sign_in_create_agent_and_keys(base: str, browser: Any) -> None:
    """The whole owner flow through the forms, checked clean and accessible at both widths."""
    wallet = Account.create()
    for width in (390, 1440):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        problems = _watch(page, base)
        page.goto(base + "/account", wait_until="networkidle")
        _clean(page, width, "signed out")
        page.fill("#address", wallet.address.lower())
        page.click("text=Show the message to sign")
        page.wait_for_load_state("networkidle")
        _clean(page, width, "message to sign")
        message = page.input_value("#message")
        assert wallet.address in message  # checksummed by the server
        signature = wallet.sign_message(encode_defunct(text=message)).signature.hex()
        page.fill("#signature", signature if signature.startswith("0x") else "0x" + signature)
        page.click("form[action='/account/login'] button")
        page.wait_for_load_state("networkidle")
        assert wallet.address in page.inner_text("main")
        if width == 390:
            page.fill("#name", XSS_NAME)
            page.select_option("#division", "open")
            page.fill("#prompt", XSS_PROMPT)
            page.click("text=Create the agent")
            page.wait_for_load_state("networkidle")
            assert "Your agent is in the season." in page.inner_text("main")
        facts = page.inner_text("main")
        assert XSS_NAME in facts  # shown as typed: escaped exactly once
        assert page.input_value("#prompt").startswith(XSS_PROMPT)
        page.fill("#prompt", f"{XSS_PROMPT} v{width}")
        page.click("text=Change the prompt")
        page.wait_for_load_state("networkidle")
        assert "takes effect from the next round" in page.inner_text("main")
        page.click("text=Create an API key")
        page.wait_for_load_state("networkidle")
        key = page.inner_text('[data-field="new-key"]')
        assert key.startswith("tl_")
        _clean(page, width, "signed in, key shown")
        page.goto(base + "/account", wait_until="networkidle")
        assert key not in page.content()  # shown once
        page.locator("button:has-text('Revoke')").first.click()
        page.wait_for_load_state("networkidle")
        assert "The key is revoked." in page.inner_text("main")
        page.click("text=Sign out")
        page.wait_for_load_state("networkidle")
        assert wallet.address not in page.inner_text("main")
        assert problems == [], (width, problems)
        context.close()


def test_account_forms_refuse_a_missing_csrf_token(base: str, browser: Any) -> None:
    """A form posted without the session's token changes nothing (403); none at all is 401."""
    context = browser.new_context()
    response = context.request.post(base + "/account/keys", form={"csrf_token": "forged"})
    assert response.status == 401  # no session at all
    wallet = Account.create()
    challenge = context.request.get(f"{base}/api/v1/account/nonce?address={wallet.address}")
    message = challenge.json()["message"]
    signature = wallet.sign_message(encode_defunct(text=message)).signature.hex()
    signed = context.request.post(
        base + "/api/v1/account/login",
        data={"message": message, "signature": "0x" + signature.removeprefix("0x")},
    )
    assert signed.status == 200
    for token in ("forged", ""):
        refused = context.request.post(base + "/account/keys", form={"csrf_token": token})
        assert refused.status == 403
        assert "reload the page" in refused.text()
    assert context.request.get(base + "/api/v1/account/keys").json()["keys"] == []
    context.close()
