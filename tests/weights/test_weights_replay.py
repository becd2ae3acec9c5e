"""The weights league replayed over real frozen bars, end to end (acceptance of issue 4).

Names: W-RND-1 (round hours), W-RND-2 (one read per round), W-DIV-1, W-DIV-2, W-VAL-8,
W-VAL-9, W-SCO-1, W-RNK-1..4, W-SEA-3, C-4 (verify recomputes every entry).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tradeleague.calls import CallParams
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import Division
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.projection import WEIGHTS_ENTRIES
from tradeleague.league.weights.replay import RosterEntry, run_season
from tradeleague.league.weights.report import build_report
from tradeleague.league.weights.round import RoundConfig
from tradeleague.market import load_dataset
from tradeleague.store import open_store, verify
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault

SYMBOLS = [
    "AAPL",
    "AMZN",
    "GOOGL",
    "META",
    "MSFT",
    "NVDA",
    "TSLA",
    "QQQ",
    "SGOV",
    "SPY",
    "USO",
    "JPM",
    "V",
    "MA",
    "COST",
    "WMT",
    "XOM",
    "LLY",
    "AVGO",
    "NFLX",
]
GOOD = json.dumps({"targets": {"SPY": 30, "QQQ": 30, "SGOV": 20}, "reason": "Core funds."})
DEADLINE_S = 5.0


def script(path: Path, texts: Sequence[str | dict[str, object]]) -> str:
    lines = [json.dumps(t if isinstance(t, dict) else {"text": t}) for t in texts]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def roster_specs(tmp: Path, url: str) -> list[str]:
    base = f"@{url}"
    valid = [GOOD, json.dumps({"targets": {"USO": 55, "NVDA": 10}, "reason": "Oil, capped."})]
    invalid = [
        "I think SPY will go up.",
        '{"targets": {"BTC": 10}, "reason": "x"}',
        '{"targets": {"SPY": 70, "QQQ": 40}, "reason": "too much"}',
        '{"targets": {"SPY": 10}, "reason": ""}',
        '{"targets": {"SPY": 10.001}, "reason": "x"}',
        '{"targets": {}, "reason": "x", "extra": 1}',
    ]
    faults: list[str | dict[str, object]] = [{"outcome": "timeout"}, {"outcome": "key_rejected"}]
    faults.append(GOOD)
    mixed: list[str | dict[str, object]] = [
        valid[i % 2] if i % 3 else invalid[i % len(invalid)] for i in range(40)
    ]
    return [
        "cash=baseline:cash",
        "hold=baseline:buy_and_hold",
        "equal=baseline:equal_weight",
        "momentum=baseline:momentum",
        "coin=baseline:coin_flip",
        f"s_valid=scripted:{script(tmp / 'v.jsonl', valid * 20)}",
        f"s_invalid=scripted:{script(tmp / 'i.jsonl', invalid * 7)}",
        f"s_mixed=scripted:{script(tmp / 'm.jsonl', mixed)}",
        f"s_short=scripted:{script(tmp / 's.jsonl', valid[:1] * 3)}",
        f"s_faults=scripted:{script(tmp / 'f.jsonl', faults * 10)}",
        f"m_good=openai:good{base}",
        f"m_fenced=openai:fenced{base}",
        f"m_prose=openai:prose{base}",
        f"m_refuse=openai:refuse{base}",
        f"m_401=openai:unauth{base}",
        f"m_404=openai:missing{base}",
        f"m_500=openai:broken{base}",
        f"m_429=openai:limited{base}",
        f"m_slow=openai:slow{base}",
        f"m_big=openai:big{base}",
    ]


def fake() -> FakeProvider:
    f = FakeProvider()
    f.script_model("good", GOOD)
    f.script_model("mega", json.dumps({"targets": {"AAPL": 30, "MSFT": 30}, "reason": "Mega."}))
    f.script_model("fenced", Behaviour(text=GOOD, fault=Fault.CODE_FENCES))
    f.script_model("prose", Behaviour(text=GOOD, fault=Fault.PROSE))
    f.script_model("refuse", Behaviour(text=GOOD, fault=Fault.REFUSAL))
    f.script_model("unauth", Behaviour(fault=Fault.UNAUTHORIZED))
    f.script_model("missing", Behaviour(fault=Fault.NOT_FOUND))
    f.script_model("broken", Behaviour(fault=Fault.SERVER_ERROR))
    f.script_model("limited", Behaviour(fault=Fault.RATE_LIMITED))
    # hangs far past the deadline in the first round only (one round waits it out), then answers
    f.enqueue("slow", Behaviour(fault=Fault.HANG))
    f.script_model("slow", GOOD)
    f.script_model("big", json.dumps({"targets": {"AAPL": 100}, "reason": "r" * 500}))
    return f


async def _replay(
    url: str,
    specs: list[str],
    division: Division,
    market: Path,
    symbols: list[str],
    start: date,
    end: date,
    season: str,
) -> tuple[dict[str, Any], bool]:
    source = FrozenBarsSource(load_dataset(market, symbols=symbols))
    parsed, agents, gateway = build_agents(specs, environ={"OPENAI_API_KEY": "sk-test"})
    roster = [
        RosterEntry(name=p.name, spec=s, division=division)
        for p, s in zip(parsed, specs, strict=True)
    ]
    # ample for every answer that must come, even on a loaded machine; only "slow" waits it out
    config = RoundConfig(params=CallParams(timeout_s=DEADLINE_S, max_tokens=200))
    try:
        with open_store(url) as store:
            state = await run_season(
                store, source, roster, agents, season_id=season, start=start, end=end, config=config
            )
            store.refresh_projections()
            report = verify(store)
            assert report.ok, report.mismatches[:3]
            assert any(p.name == WEIGHTS_ENTRIES and p.keys for p in report.projections)
            return build_report(state), report.ok
    finally:
        if gateway is not None:
            await gateway.aclose()


@pytest.mark.slow
def test_28_day_open_replay(shared_data: Path, tmp_path: Path, sqlite_url: str) -> None:
    """Acceptance: 28 days, 20 symbols incl. QQQ SGOV SPY USO, 20 agents; verify agrees."""
    with fake() as provider:
        specs = roster_specs(tmp_path, provider.url)
        out, ok = asyncio.run(
            _replay(
                sqlite_url,
                specs,
                Division.OPEN,
                shared_data / "us_equities_daily",
                SYMBOLS,
                date(2026, 7, 6),
                date(2026, 8, 3),
                "open-28",
            )
        )
    assert ok
    rounds = out["rounds"]
    assert isinstance(rounds, list)
    assert len(rounds) == 20
    assert {r["time"][11:16] for r in rounds} == {"15:00"}
    agents: dict[str, Any] = {a["name"]: a for a in out["agents"]}
    assert len(agents) == 20
    assert all(len(a["entries"]) == 20 for a in agents.values())  # W-SCO-1
    codes = Counter(e["reason_code"] for a in agents.values() for e in a["entries"])
    for expected in (
        "not_in_format",
        "unknown_symbol",
        "weights_over_100",
        "empty_reason",
        "bad_weight",
        "not_two_parts",
        "key_rejected",
        "model_rejected",
        "provider_error",
        "timeout",
    ):
        assert codes[expected] > 0, expected
    assert agents["cash"]["entries"][-1]["value"] == "10000.000000"
    assert agents["m_good"]["rank"] is not None
    assert [e["reason_code"] for e in agents["m_slow"]["entries"][:2]] == ["timeout", None]
    assert agents["m_401"]["rank"] is None
    assert agents["m_401"]["unranked_reason"] == "fewer_than_3_decisions"
    assert agents["m_good"]["trades"] > 0
    assert agents["m_good"]["entries"][0]["holdings"]["SPY"]
    big = agents["m_big"]["entries"][0]
    assert big["kind"] == "decision"
    aapl_value = float(big["holdings"]["AAPL"]) * float(rounds[0]["prices"]["AAPL"])
    assert 3_900 < aapl_value <= 4_000  # W-VAL-7 cap at 40%
    ranks = sorted(a["rank"] for a in agents.values() if a["rank"] is not None)
    assert ranks == list(range(1, len(ranks) + 1))  # W-RNK-3
    assert out["scoring_version"]
    assert out["prompt_version"]


@pytest.mark.slow
def test_pro_hourly_replay(shared_data: Path, tmp_path: Path, sqlite_url: str) -> None:
    """Acceptance: Pro division, five rounds a day on hourly bars; W-VAL-9 pauses bad keys."""
    with fake() as provider:
        base = provider.url
        specs = [
            "cash=baseline:cash",
            "equal=baseline:equal_weight",
            "momentum=baseline:momentum",
            f"good=openai:mega@{base}",
            f"unauth=openai:unauth@{base}",
            f"broken=openai:broken@{base}",
        ]
        symbols = ["AAPL", "AMZN", "GOOGL", "META", "MSFT", "NVDA", "TSLA"]
        out, ok = asyncio.run(
            _replay(
                sqlite_url,
                specs,
                Division.PRO,
                shared_data / "us_equities_1h",
                symbols,
                date(2026, 5, 4),
                date(2026, 5, 11),
                "pro-week",
            )
        )
    assert ok
    rounds = out["rounds"]
    assert isinstance(rounds, list)
    assert len(rounds) == 25
    assert sorted({r["time"][11:16] for r in rounds}) == [
        "15:00",
        "16:00",
        "17:00",
        "18:00",
        "19:00",
    ]
    agents: dict[str, Any] = {a["name"]: a for a in out["agents"]}
    assert len(agents["good"]["entries"]) == 25
    assert len(agents["unauth"]["entries"]) == 3  # W-VAL-9: paused after three
    assert agents["unauth"]["unranked_reason"] == "fewer_than_5_trading_days"
    assert len(agents["broken"]["entries"]) == 25  # provider errors do not pause
    assert agents["good"]["rank"] is not None
