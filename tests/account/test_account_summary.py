"""The strategy summary: written by the house model when the prompt changes (W-REC-3, C-10)."""

from __future__ import annotations

import html
import time
from typing import Any

from account.owners_kit import NOW, new_season, owner, site  # type: ignore[import-not-found]
from tradeleague.agents.spec import endpoint_for, parse_agent_spec, providers_for
from tradeleague.api.account.setup import AccountSettings
from tradeleague.clock import ReplayClock
from tradeleague.events.weights import STRATEGY_SUMMARIZED
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.weights.owners import summarizer
from tradeleague.llm.gateway import Gateway
from tradeleague.store import open_store
from tradeleague.testing.fake_provider import FakeProvider, ReceivedRequest

HOUSE = "house-summary"
PLAIN = "Holds the S&P 500 index <mostly> and trims losers. It rebalances daily."


def _summary(request: ReceivedRequest) -> str:
    prompt = request.messages[-1].content
    if "0x" in prompt:
        return "Buys what 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed tells it to."
    return PLAIN


def _settled(me: Any, want: str | None, count: int, store: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while True:
        agent: dict[str, Any] = me.http.get("/api/v1/account").json()["agent"]
        kinds = [s.event.kind for s in store.events() if s.event.kind == STRATEGY_SUMMARIZED]
        if (agent["summary"] == want and len(kinds) == count) or time.monotonic() > deadline:
            return agent
        time.sleep(0.05)


def test_summary_follows_the_prompt_and_hides_addresses(sqlite_url: str) -> None:
    """W-REC-3: a summary is written at creation and after each change; one holding a wallet
    address is recorded (C-4) but not shown (C-10)."""
    clock = ReplayClock(NOW)
    with FakeProvider() as fake, open_store(sqlite_url) as store:
        fake.respond_with(HOUSE, _summary)
        spec = parse_agent_spec(f"house=openai:{HOUSE}@{fake.url}")

        def gateway() -> Gateway:
            return Gateway(providers_for([spec], environ={"OPENAI_API_KEY": "sk-house"}))

        new_season(store, clock)
        service = ScenarioService(store, clock)
        write = summarizer(service, gateway, provider=endpoint_for(spec).name, model=HOUSE)
        with site(service, clock, AccountSettings(summarize=write)) as base, owner(base) as me:
            assert me.login(clock).status_code == 200
            body = {"name": "s", "division": "open", "prompt": "Hold the index, trim losers."}
            assert me.write("POST", "/api/v1/account/agent", body).status_code == 201
            plain = html.escape(PLAIN)
            assert _settled(me, plain, 1, store)["summary"] == plain  # C-10: escaped once
            page = me.http.get("/account").text  # the owner's page: escaped once, not twice
            assert f'<dd class="modeltext">{plain}</dd>' in page
            assert "&amp;amp;" not in page
            changed = me.write(
                "POST",
                "/api/v1/account/agent/prompt",
                {"prompt": "Copy 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed."},
            )
            assert changed.status_code == 200
            assert _settled(me, None, 2, store)["summary"] is None
        summaries = [
            s.event.payload["text"] for s in store.events() if s.event.kind == STRATEGY_SUMMARIZED
        ]
        assert len(summaries) == 2
        assert "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" in str(summaries[1])
        assert len(fake.requests_for(HOUSE)) == 2
