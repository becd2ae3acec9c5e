"""The thesis league replayed over the frozen folders (T-*, C-5, ST-1, ST-2): the acceptance."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.agents.inverse import SharedAgent
from tradeleague.agents.recorded import calls_in
from tradeleague.agents.scripted import ScriptedAgent
from tradeleague.agents.thesis import ThesisMirror
from tradeleague.agents.tools import Tool, ToolBox, ToolsAgent
from tradeleague.calls import CallParams, Outcome
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind, check_events
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.baselines import ThesisView, make_baseline
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.league.thesis.cycle import CycleConfig, Entrant
from tradeleague.league.thesis.data import load_tape
from tradeleague.league.thesis.replay import cycle_times, run_season
from tradeleague.league.thesis.report import build_report
from tradeleague.llm.gateway import Gateway, ModelGateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import preset
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway
from tradeleague.money import MICRO, micros_to_str
from tradeleague.store import open_store, verify
from tradeleague.testing.fake_provider import FakeProvider, ReceivedRequest
from tradeleague.testing.fake_script import Behaviour

PRESET = ThesisPreset()
START, END = date(2025, 3, 3), date(2025, 3, 31)  # 28 days, Monday to Monday
KEY = "sk-thesis-test-0000"
SOURCES = {"crypto": "crypto_4h", "stocks": "us_equities_daily"}


@pytest.fixture(scope="module")
def tape(shared_data: Path) -> MarketTape:
    """The universe over the frozen crypto 4h and stock daily folders."""
    return load_tape(load_universe(), shared_data / "crypto_4h", shared_data / "us_equities_daily")


def _answer(*decisions: Mapping[str, object]) -> str:
    return json.dumps(
        {
            "reasoning": "The trend is clear. Risk is bounded.",
            "market_context": {"overall_sentiment": "neutral", "key_factors": ["trend"]},
            "decisions": list(decisions),
        }
    )


EMPTY = _answer()


def _open(
    symbol: str, level: int, *, short: bool = False, pct: int = 20, **extra: object
) -> dict[str, object]:
    return {
        "action": "open_short" if short else "open_long",
        "symbol": symbol,
        "percent_of_equity": pct,
        "invalidation_price": micros_to_str(level),
        "confidence": 0.9,
        "thesis": f"{symbol} keeps its trend.",
        "invalidation": "The level breaks.",
        **extra,
    }


def _price(tape: MarketTape, symbol: str, cycle: int) -> int:
    moment = cycle_times(START, END, PRESET)[cycle]
    price = tape.price_at(symbol, moment)
    assert price is not None
    return int(price)


def _script(tmp: Path, name: str, lines: Sequence[str], total: int = 40) -> ScriptedAgent:
    padded = [*lines, *[EMPTY] * (total - len(lines))]
    path = tmp / f"{name}.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in padded), encoding="utf-8")
    return ScriptedAgent.from_file(name, path)


def _baseline(name: str) -> BaselineAgent[Any]:
    decide, render = make_baseline(name)
    return BaselineAgent(name, decide, render)


@dataclass
class Spy:
    """A test agent that records every turn it is asked and answers from a list."""

    name: str
    answers: list[str]
    kind: str = "scripted"
    turns: list[Turn] = field(default_factory=list)

    async def answer(self, turn: Turn) -> AgentReply:
        self.turns.append(turn)
        text = self.answers.pop(0) if self.answers else EMPTY
        return AgentReply(outcome=Outcome.ANSWERED, text=text)


def _entr(name: str, kind: str = "scripted", enters: int = 0, agentic: bool = False) -> Entrant:
    return Entrant(name=name, spec=f"{kind}:{name}", kind=kind, enters=enters, agentic=agentic)


def _events(url: str, season: str) -> list[Any]:
    with open_store(url) as store:
        return [s.event for s in store.events(tev.season_stream(season))]


# ---------------------------------------------------------------- small replays


def _run(
    url: str,
    tape: MarketTape,
    roster: Sequence[tuple[Entrant, Agent]],
    *,
    end: date = date(2025, 3, 8),
    season: str = "s",
    on_cycle: Callable[[int, int], None] | None = None,
    config: CycleConfig | None = None,
) -> Any:
    with open_store(url) as store:
        return asyncio.run(
            run_season(
                store,
                tape,
                [e for e, _ in roster],
                {e.name: a for e, a in roster},
                season_id=season,
                start=START,
                end=end,
                sources=SOURCES,
                config=config,
                on_cycle=on_cycle,
            )
        )


def test_correction_round_one_follow_up_then_final_t_cyc_9(
    tmp_path: Path, tape: MarketTape
) -> None:
    """T-CYC-9: one bad action earns one follow-up (reasons, trades, budget); 2nd miss final."""
    eth = _price(tape, "ETHUSDT", 0)
    first = _answer(_open("ETH", eth // 2), _open("SPY", 1))
    spy = Spy("fixer", [first, _answer(_open("SPY", 1)), EMPTY, EMPTY, EMPTY])
    steady = Spy("steady", [EMPTY] * 5)
    state = _run(
        f"sqlite:///{tmp_path / 'c.db'}", tape, [(_entr("fixer"), spy), (_entr("steady"), steady)]
    )
    assert [t.key.turn for t in spy.turns[:3]] == [0, 1, 0]  # one follow-up, then the next cycle
    assert [t.key.turn for t in steady.turns] == [0] * 5  # no rejection, no follow-up
    follow = spy.turns[1].messages[-1].content
    body = json.loads(follow[follow.index("{") :])
    assert body["rejected"] == [
        {
            "action": "open_long",
            "symbol": "SPY",
            "reason_code": "benchmark_not_tradeable",
            "detail": "benchmarks are never held",
        }
    ]
    assert [(e["action"], e["symbol"]) for e in body["executed"]] == [("open_long", "ETH")]
    book = state.agents["fixer"].entries[0]["book"]
    assert body["budget_left"] != "0"
    assert book["portfolio"]["positions"]["ETHUSDT"]
    entries = [
        (e["attempt"], [d["reason_code"] for d in e["decisions"]])
        for e in state.agents["fixer"].entries[:3]
    ]
    assert entries == [
        (1, [None, "benchmark_not_tradeable"]),
        (2, ["benchmark_not_tradeable"]),
        (1, []),
    ]
    assert spy.turns[2].messages[-1].role == "user"
    assert spy.turns[2].key.round != spy.turns[1].key.round


def _breaking_cycle(tape: MarketTape, falls: bool) -> tuple[int, int]:
    """Return the first cycle (0..3) whose ETH price moves past it before the next, and price."""
    times = cycle_times(START, END, PRESET)
    for cycle in range(4):
        price = _price(tape, "ETHUSDT", cycle)
        later = [
            int(tape.price_at("ETHUSDT", t) or 0)
            for t in range(times[cycle] + 900, times[cycle + 1], 900)
        ]
        if any(p < price if falls else p > price for p in later):
            return cycle, price
    raise AssertionError("no move in the window")


def test_monitor_closes_long_and_short_at_first_broken_check_t_mon_1(
    tmp_path: Path, tape: MarketTape
) -> None:
    """T-MON-1: a long just under (short just over) the market closes at the first broken check."""
    lc, lp = _breaking_cycle(tape, falls=True)
    sc, sp = _breaking_cycle(tape, falls=False)
    long_ = Spy("long", [*[EMPTY] * lc, _answer(_open("ETH", lp - 1))])
    short = Spy("short", [*[EMPTY] * sc, _answer(_open("ETH", sp + 1, short=True))])
    state = _run(
        f"sqlite:///{tmp_path / 'm.db'}", tape, [(_entr("long"), long_), (_entr("short"), short)]
    )
    times = cycle_times(START, END, PRESET)
    for name, cycle, level, sign in (("long", lc, lp - 1, 1), ("short", sc, sp + 1, -1)):
        closes = [c for c in state.monitor_closes if c["agent"] == name]
        assert len(closes) == 1
        check = times[cycle] + 900
        while (int(tape.price_at("ETHUSDT", check) or 0) - level) * sign > 0:
            check += 900
        close = closes[0]
        want = int(tape.price_at("ETHUSDT", check) or 0)
        assert close["time"].startswith(
            datetime.fromtimestamp(check, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        )
        assert int(close["price"]) == want
        assert int(close["level"]) == level
        qty = int(close["quantity"])
        value = qty * want // MICRO if sign > 0 else -(-qty * want // MICRO)
        assert int(close["fee"]) == -(-value * PRESET.fee_ppm // MICRO)
        assert state.agents[name].book.portfolio.positions == {}
        assert state.agents[name].book.closed["ETHUSDT"].direction == sign


def test_calls_go_out_in_parallel_once_per_cycle_t_cyc_6(tmp_path: Path, tape: MarketTape) -> None:
    """T-CYC-6: every model is asked at once, one decision call each a cycle."""
    ready = asyncio.Event()

    @dataclass
    class Waits:
        name: str = "waits"
        kind: str = "llm"  # models: a replay asks prompt-blind agents in its own task

        async def answer(self, turn: Turn) -> AgentReply:
            await asyncio.wait_for(ready.wait(), 5)  # would time out if asked one after another
            ready.clear()
            return AgentReply(outcome=Outcome.ANSWERED, text=EMPTY)

    @dataclass
    class Sets:
        name: str = "sets"
        kind: str = "llm"
        asked: int = 0

        async def answer(self, turn: Turn) -> AgentReply:
            self.asked += 1
            ready.set()
            return AgentReply(outcome=Outcome.ANSWERED, text=EMPTY)

    sets = Sets()
    state = _run(
        f"sqlite:///{tmp_path / 'p.db'}",
        tape,
        [(_entr("waits"), Waits()), (_entr("sets"), sets)],
        end=date(2025, 3, 5),
    )
    assert sets.asked == 2
    assert [e["outcome"] for e in state.agents["waits"].entries] == ["answered", "answered"]


def test_season_is_28_days_t_sea_1() -> None:
    """T-SEA-1: a season's cycles are its 28 days at 16:00 UTC; a longer range is refused."""
    times = cycle_times(START, END, PRESET)
    assert len(times) == 28
    assert times[0] == int(datetime(2025, 3, 3, 16, tzinfo=UTC).timestamp())
    with pytest.raises(ConfigError):
        cycle_times(START, date(2025, 4, 1), PRESET)


def test_resumed_replay_equals_uninterrupted(tmp_path: Path, tape: MarketTape) -> None:
    """C-11: a replay interrupted after a cycle and run again ends on the uninterrupted head."""
    eth = _price(tape, "ETHUSDT", 0)

    def roster() -> list[tuple[Entrant, Agent]]:
        lines = [
            "not json",
            _answer(_open("ETH", eth // 2)),
            EMPTY,
            _answer({"action": "close", "symbol": "ETH", "percent_of_position": 50}),
        ]
        return [
            (_entr("s"), _script(tmp_path, "s", lines)),
            (_entr("hold", "baseline"), _baseline("buy_and_hold")),
        ]

    whole = f"sqlite:///{tmp_path / 'whole.db'}"
    _run(whole, tape, roster())

    class Stop(Exception):
        pass

    def stop(index: int, total: int) -> None:
        if index == 2:
            raise Stop

    parts = f"sqlite:///{tmp_path / 'parts.db'}"
    with pytest.raises(Stop):
        _run(parts, tape, roster(), on_cycle=stop)
    _run(parts, tape, roster())
    with open_store(whole) as a, open_store(parts) as b:
        assert a.head() == b.head()


# ------------------------------------------------------- the 16-agent acceptance


def agents_positions(state: Any, name: str) -> list[str]:
    """Return the normalised names an agent held after its first attempt."""
    return list(state.agents[name].entries[0]["positions"])


def _tool_call() -> dict[str, Any]:
    return {"id": "c1", "type": "function", "function": {"name": "screen", "arguments": "{}"}}


def _responder(received: ReceivedRequest) -> Behaviour:
    """The fake model of the tool-using agent: look at the screen, then open its first name."""
    last = received.messages[-1]
    if last.role == "tool":
        names = json.loads(last.content)["result"]
        return Behaviour(text=_answer(_open(names[0], 1, pct=10)))
    if "correction" in last.content:
        return Behaviour(text=EMPTY)
    return Behaviour(text="", tool_calls=(_tool_call(),))


def _toolbox(turn: Turn) -> ToolBox:
    view = turn.view
    screened = list(view.screened) if isinstance(view, ThesisView) else []

    def screen(args: Mapping[str, Any]) -> object:
        return screened[:5]

    return ToolBox([Tool(name="screen", description="The screened names.", run=screen)])


def _roster16(tmp: Path, tape: MarketTape, gw: ModelGateway) -> list[tuple[Entrant, Agent]]:
    eth, sol, bnb = (_price(tape, s, 0) for s in ("ETHUSDT", "SOLUSDT", "BNBUSDT"))
    sol20 = _price(tape, "SOLUSDT", 20)
    close_eth = _answer({"action": "close", "symbol": "ETH"})
    valid = SharedAgent(
        _script(tmp, "valid", [
            _answer(_open("ETH", eth // 2)), *[EMPTY] * 6, close_eth, *[EMPTY] * 12,
            _answer(_open("SOL", sol20 // 2)),
        ])
    )  # fmt: skip
    scripts: dict[str, list[str]] = {
        "short": [_answer(_open("SOL", sol * 2, short=True, pct=15))],
        "badjson": ["not json at all", EMPTY],
        "bench": [_answer(_open("SPY", 1), _open("XRP", 1)), _answer(_open("SPY", 1))],
        "conf": [_answer(_open("ETH", eth // 2, confidence=0.5)), _answer(_open("ETH", eth // 2))],
        "weekend": [*[EMPTY] * 5, _answer(_open("AAPL", 1)), EMPTY],
        "partial": [
            _answer(_open("BNB", bnb // 2, pct=30)), EMPTY, EMPTY,
            _answer({"action": "close", "symbol": "BNB", "percent_of_position": 40}),
        ],
        "empty": [],
        "churn": [_answer(_open("DOGE", 1), {"action": "close", "symbol": "DOGE"}), EMPTY],
        "add": [
            _answer(_open("BNB", bnb // 2, pct=10)), EMPTY, EMPTY,
            _answer({**_open("BNB", bnb // 2, pct=10), "action": "add"}), EMPTY,
        ],
        "tight": [_answer(_open("ETH", eth * 97 // 100))],
    }  # fmt: skip
    roster: list[tuple[Entrant, Agent]] = [
        (_entr(n, "baseline"), _baseline(n)) for n in ("cash", "buy_and_hold", "coin_flip")
    ]
    roster.append((_entr("valid"), valid))
    roster += [(_entr(n), _script(tmp, n, lines)) for n, lines in scripts.items()]
    roster.append(
        (_entr("mirror", "inverse", enters=20), ThesisMirror(name="mirror", source=valid))
    )
    gg = ToolsAgent(
        name="agent_gg", model="gg", provider="openrouter", gateway=gw, toolbox=_toolbox
    )
    roster.append((_entr("agent_gg", "tools", agentic=True), gg))
    return roster


async def _season16(
    url: str,
    tmp: Path,
    tape: MarketTape,
    gw: ModelGateway,
    on_cycle: Callable[[int, int], None] | None = None,
) -> Any:
    roster = _roster16(tmp, tape, gw)
    with open_store(url) as store:
        return await run_season(
            store, tape, [e for e, _ in roster], {e.name: a for e, a in roster},
            season_id="acceptance", start=START, end=END, sources=SOURCES,
            config=CycleConfig(limit=timedelta(seconds=60), params=CallParams(timeout_s=30)),
            on_cycle=on_cycle,
        )  # fmt: skip


async def _live16(url: str, tmp: Path, tape: MarketTape) -> Any:
    async with FakeProvider(require_key=KEY) as fake:
        fake.respond_with("gg", _responder)
        provider = OpenAICompatProvider(
            preset("openrouter").with_base_url(fake.url), environ={"OPENROUTER_API_KEY": KEY}
        )
        async with Gateway([provider]) as gw:
            return await _season16(url, tmp, tape, gw)


def test_28_day_replay_with_16_agents(tmp_path: Path, tape: MarketTape) -> None:
    """T-UNI-1..3, T-CYC-1..10, T-MON-1..2, T-AGT-1..2, T-SCO-1, ST-1, ST-2: issue 14's acceptance.

    Baselines, scripted valid and invalid answers, the mirror entering on day 21
    and a tool-using agent over the fake provider play 28 cycles; the store
    verifies; the same replay, interrupted and resumed from the recorded calls,
    ends on the same chain head.
    """
    url = f"sqlite:///{tmp_path / 'a.db'}"
    (tmp_path / "a").mkdir()
    state = asyncio.run(_live16(url, tmp_path / "a", tape))
    report: Any = build_report(state, None)
    events = _events(url, "acceptance")
    assert check_events(events, "thesis") == []
    with open_store(url) as store:
        store.refresh_projections()
        assert verify(store).mismatches == ()
    cycles = report["cycles"]
    assert len(cycles) == 28
    for cycle in cycles:
        day = date.fromisoformat(cycle["time"][:10])
        assert {"BTC", "SPY"} <= set(cycle["prices"])
        assert {"BTC", "SPY"} <= set(cycle["rsi"])
        assert len(cycle["screen"]["crypto"]) == 5
        assert all("USDT" not in r["symbol"] for r in cycle["screen"]["crypto"])
        weekend = day.weekday() >= 5
        assert cycle["stocks_open"] is not weekend
        assert (cycle["screen"]["stocks"] == []) is weekend
        for row in cycle["screen"]["crypto"] + cycle["screen"]["stocks"]:
            assert row["symbol"] in cycle["prices"]
            assert set(cycle["rsi"][row["symbol"]]) == {
                "4h",
                "1d",
                "1w",
            }
    # T-UNI-3: held stocks stay visible on a closed day
    crypto = {s.removesuffix("USDT") for s in load_universe().crypto}
    held = [s for s in agents_positions(state, "buy_and_hold") if s not in crypto]
    assert len(held) == 5
    assert all(s in cycles[5]["prices"] for s in held)
    agents = {a["name"]: a for a in report["agents"]}
    assert len(agents) == 16
    # T-CYC-9: the benchmark's second miss is final
    bench = agents["bench"]["entries"]
    assert [(e["cycle"][:10], e["attempt"]) for e in bench[:3]] == [
        ("2025-03-03", 1),
        ("2025-03-03", 2),
        ("2025-03-04", 1),
    ]
    assert bench[1]["decisions"][0]["reason_code"] == "benchmark_not_tradeable"
    # T-UNI-3: a stock action on a Saturday is rejected with its reason code
    saturday = [e for e in agents["weekend"]["entries"] if e["cycle"].startswith("2025-03-08")]
    assert saturday[0]["decisions"][0]["reason_code"] == "market_closed"
    assert len(saturday) == 2
    # T-ACT-6: churn
    assert [d["reason_code"] for d in agents["churn"]["entries"][0]["decisions"]] == [
        None,
        "one_action_per_symbol",
    ]
    # T-AGT-1: the mirror enters on day 21 and plays the source's decision reversed
    mirror = agents["mirror"]["entries"]
    assert mirror[0]["cycle"].startswith("2025-03-23")
    assert agents["mirror"]["entered_cycle"] == 20
    assert [(d["action"], d["symbol"], d["status"]) for d in mirror[0]["decisions"]] == [
        ("open_short", "SOL", "executed")
    ]
    # T-AGT-2: every step recorded, marked agentic, ranked in the same table
    gg = [
        e for e in events if e.kind == EventKind.MODEL_CALLED and e.payload["agent"] == "agent_gg"
    ]
    steps = sum(
        int(e.payload.get("steps", 0))
        for e in events
        if e.kind == tev.ATTEMPT_JUDGED and e.payload["agent"] == "agent_gg"
    )
    assert len(gg) == steps >= 56
    board = {r["name"]: r for r in report["board"]}
    assert board["agent_gg"]["agentic"] is True
    assert board["cash"]["agentic"] is False
    # T-SCO-1, ST-1, ST-2
    for row in board.values():
        for key in (
            "return",
            "max_drawdown",
            "sharpe",
            "sortino",
            "win_rate",
            "exposure",
            "trades",
            "decisions",
            "vs_cash",
            "vs_spy",
            "luckiest_of_n",
            "rank",
            "unranked_reason",
        ):
            assert key in row
    assert board["cash"]["return"] == "0.00"
    assert board["cash"]["trades"] == 0
    unranked = {r["name"] for r in board.values() if r["rank"] is None}
    assert "cash" in unranked
    assert all(board[n]["trades"] == 0 for n in unranked)
    ranked = sorted(r["rank"] for r in board.values() if r["rank"] is not None)
    assert ranked == list(range(1, 17 - len(unranked)))
    # C-5: the same replay, interrupted after cycle 9 and resumed from the recorded calls
    with open_store(url) as store:
        records = calls_in(list(store.events(tev.season_stream("acceptance"))), season="acceptance")

    class Stop(Exception):
        pass

    def stop(index: int, total: int) -> None:
        if index == 9:
            raise Stop

    again = f"sqlite:///{tmp_path / 'b.db'}"
    replayed = ReplayGateway(RecordedAnswers(records))
    (tmp_path / "b").mkdir()
    with pytest.raises(Stop):
        asyncio.run(_season16(again, tmp_path / "b", tape, replayed, on_cycle=stop))
    asyncio.run(_season16(again, tmp_path / "b", tape, ReplayGateway(RecordedAnswers(records))))
    with open_store(url) as a, open_store(again) as b:
        assert a.head() == b.head()
