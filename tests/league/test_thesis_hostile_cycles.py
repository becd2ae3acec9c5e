"""Fault containment as a property: any answer a model sends, a thesis cycle completes (issue 10).

The hostile corpus the weights and direction rounds meet (deep JSON, lone
surrogates, invalid UTF-8, control characters, huge numbers and texts, wrong
types) is sent as a thesis model's first answer and again as its correction
(T-CYC-9), by scripted agents and over the fake provider (as the answer text,
and as raw response bodies). Each ends as a reason code recorded in the
season's events, the season goes on to its next cycle and its end, a resumed
season meets the recorded garbage again without harm, and ``verify`` passes.
The recursion limit is raised as ``py_ecc`` raises it, so an unbounded
decoder would overflow the stack.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tradeleague.agents.base import MAX_LATENCY_MS, Agent, AgentReply, Turn
from tradeleague.agents.scripted import ScriptedAgent
from tradeleague.agents.spec import parse_agent_spec, providers_for
from tradeleague.calls import Outcome
from tradeleague.events import EventKind, check_events
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe
from tradeleague.league.answers import summarise
from tradeleague.league.thesis.agents import build_roster
from tradeleague.league.thesis.cycle import Entrant
from tradeleague.league.thesis.data import load_tape
from tradeleague.league.thesis.replay import run_season
from tradeleague.league.thesis.state import SeasonState
from tradeleague.llm.gateway import Gateway
from tradeleague.store import open_store, verify
from tradeleague.testing.fake_provider import FakeProvider

START = date(2025, 3, 3)
TWO_CYCLES = date(2025, 3, 5)
SOURCES = {"crypto": "crypto_4h", "stocks": "us_equities_daily"}
PRESET = ThesisPreset()
DEEP = "[" * 70_000 + "]" * 70_000


def _answer(reasoning: object = "A reason.", decisions: object = (), **context: object) -> str:
    return json.dumps(
        {
            "reasoning": reasoning,
            "market_context": {"overall_sentiment": "neutral", "key_factors": [], **context},
            "decisions": list(decisions) if isinstance(decisions, tuple) else decisions,
        }
    )


EMPTY = _answer()
_OPEN = {
    "action": "open_long", "symbol": "ETH", "percent_of_equity": 10, "confidence": 0.8,
    "invalidation_price": 1, "thesis": "t", "invalidation": "i",
}  # fmt: skip

HOSTILE: dict[str, tuple[str, str]] = {
    # name: (the answer, the reason code it must get)
    "deep": (DEEP, "not_json"),
    "deep_inside": ('{"reasoning": "x", "market_context": ' + "[" * 70_000, "not_json"),
    "deep_object": ("{" * 70_000, "not_json"),
    "escaped_surrogate": (EMPTY.replace("A reason.", "\\ud800"), "not_json"),
    "surrogate_key": (EMPTY.replace('"reasoning"', '"\\udfff"'), "not_json"),
    "invalid_utf8": (b"\xff\xfe\xfd{}".decode("utf-8", "surrogateescape"), "not_json"),
    "control_chars": ("\x00\x1b[2J\x07" + EMPTY, "not_json"),
    "nul_only": ("\x00" * 1000, "not_json"),
    "huge_int": (_answer(decisions=({**_OPEN, "percent_of_equity": 7},)).replace(
        '"percent_of_equity": 7', '"percent_of_equity": ' + "9" * 5000), "not_json"),
    "huge_float": (_answer(decisions=({**_OPEN, "invalidation_price": "1e999999"},)),
                   "invalidation_wrong_side"),
    "inf": (EMPTY.replace('"decisions": []', '"decisions": [{"action": "open_long", '
                          '"symbol": "ETH", "percent_of_equity": Infinity}]'), "bad_sizing"),
    "huge_text": ("x" * (PRESET.max_answer_chars + 1), "not_json"),
    "blank": (" \n\t" * 70_000, "not_json"),
    "zero_width_reason": (_answer("\u200b\u200c\u2060"), "bad_schema"),
    "zero_width_thesis": (_answer(decisions=({**_OPEN, "thesis": "\u200b\u200b"},)),
                          "missing_field"),
    "wrong_reasoning": (_answer(5), "bad_schema"),
    "wrong_decisions": (_answer(decisions={"action": "hold"}), "bad_schema"),
    "decision_text": (_answer(decisions=("open_long ETH",)), "bad_schema"),
    "action_number": (_answer(decisions=({"action": 5, "symbol": "ETH"},)), "bad_schema"),
    "too_many": (_answer(decisions=({"action": "hold", "symbol": "ETH"},) * 1000),
                 "too_many_decisions"),
    "array": ("[]", "not_json"),
    "null": ("null", "not_json"),
    "number": ("1e999999", "not_json"),
}  # fmt: skip


pytestmark = pytest.mark.usefixtures("deep_stack")  # conftest: py_ecc's recursion limit


@pytest.fixture(scope="module")
def tape(shared_data: Path) -> MarketTape:
    """The universe over the frozen crypto 4h and stock daily folders."""
    return load_tape(load_universe(), shared_data / "crypto_4h", shared_data / "us_equities_daily")


def _script(folder: Path, name: str, lines: Sequence[str]) -> ScriptedAgent:
    path = folder / f"{name}.jsonl"
    padded = [*lines, *[EMPTY] * 4]
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in padded), encoding="utf-8")
    return ScriptedAgent.from_file(name, path)


def _entrant(name: str, kind: str = "scripted") -> Entrant:
    return Entrant(name=name, spec=f"{kind}:{name}", kind=kind)


@dataclass
class Says:
    """An agent that answers ``text`` with ``latency_ms``, or raises when ``text`` is None."""

    name: str
    text: str | None
    latency_ms: int = 0
    kind: str = "scripted"

    async def answer(self, turn: Turn) -> AgentReply:
        if self.text is None:
            raise RuntimeError("the agent broke")
        return AgentReply(outcome=Outcome.ANSWERED, text=self.text, latency_ms=self.latency_ms)


def _season(
    url: str,
    tape: MarketTape,
    roster: Sequence[tuple[Entrant, Agent]],
    *,
    end: date = TWO_CYCLES,
    stop_after: int | None = None,
) -> SeasonState:
    class Stop(Exception):
        pass

    def on_cycle(index: int, total: int) -> None:
        if index == stop_after:
            raise Stop

    with open_store(url) as store:
        try:
            return asyncio.run(
                run_season(
                    store, tape, [e for e, _ in roster], {e.name: a for e, a in roster},
                    season_id="hostile", start=START, end=end, sources=SOURCES,
                    on_cycle=on_cycle,
                )
            )  # fmt: skip
        except Stop:
            return SeasonState.from_events(
                (s.event for s in store.events(tev.season_stream("hostile"))), PRESET
            )


def _codes(entry: Mapping[str, Any]) -> list[str | None]:
    """Return an attempt's reason codes: the answer's, else each rejected decision's."""
    if entry["outcome"] != Outcome.ANSWERED.value:
        return [str(entry["outcome"])]
    if entry["answer_reason"] is not None:
        return [str(entry["answer_reason"])]
    return [d["reason_code"] for d in entry["decisions"] if d["reason_code"] is not None]


def _checked(url: str) -> list[Any]:
    with open_store(url) as store:
        store.refresh_projections()
        assert verify(store).mismatches == ()
        events = [s.event for s in store.events(tev.season_stream("hostile"))]
    assert check_events(events, "thesis") == []
    kinds = [e.kind for e in events]
    assert kinds.count(EventKind.ROUND_STARTED) == kinds.count(EventKind.ROUND_FINISHED)
    return events


_FIX = _answer(decisions=({**_OPEN, "symbol": "SPY"},))
"""A valid answer whose one action is rejected (a benchmark): it earns the correction."""


def _hostile_roster(folder: Path) -> list[tuple[Entrant, Agent]]:
    """Each hostile answer sent twice (first and correction); then a garbage correction."""
    roster: list[tuple[Entrant, Agent]] = [
        (_entrant(name), _script(folder, name, [text, text])) for name, (text, _) in HOSTILE.items()
    ]
    roster.append((_entrant("fixer"), _script(folder, "fixer", [_FIX, DEEP])))
    return roster


def test_hostile_answers_and_corrections_get_reason_codes_t_cyc_7_t_cyc_9(
    tmp_path: Path, tape: MarketTape
) -> None:
    """T-CYC-7, T-CYC-9, C-6: every hostile answer, first and as the correction, is a code.

    The season is interrupted after its first cycle and resumed (the recorded
    garbage is read back, issue 10's "poisoned season"), plays its second
    cycle and ends; the record verifies.
    """
    url = f"sqlite:///{tmp_path / 'h.db'}"
    _season(url, tape, _hostile_roster(tmp_path), stop_after=0)
    state = _season(url, tape, _hostile_roster(tmp_path))
    assert state.ended
    _checked(url)
    for name, (_, code) in HOSTILE.items():
        entries = state.agents[name].entries
        got = [(e["attempt"], _codes(e)) for e in entries]
        assert got == [(1, [code]), (2, [code]), (1, [])], name
        assert entries[-1]["round"] != entries[0]["round"]  # the season went on
        json.dumps(entries, ensure_ascii=False).encode("utf-8")  # storable as it was stored
    fixer = [(e["attempt"], _codes(e)) for e in state.agents["fixer"].entries]
    assert fixer == [(1, ["benchmark_not_tradeable"]), (2, ["not_json"]), (1, [])]
    with open_store(url) as store:
        summaries = {s.agent: s for s in summarise(store, "hostile")}
    for name, (_, code) in HOSTILE.items():
        assert summaries[name].decisions == 1, name  # the second cycle's empty answer
        assert summaries[name].no_decisions == {code: 1}, name
    # Its first answer's one action was rejected, its correction was garbage: no decision.
    assert (summaries["fixer"].decisions, summaries["fixer"].no_decisions) == (1, {"not_json": 1})


def test_broken_and_slow_agents_are_skips_not_crashes(tmp_path: Path, tape: MarketTape) -> None:
    """C-7: an agent that raises is a skipped turn (league fault); a latency of 10^30 ms is
    clamped; neither ends the cycle, and the others' turns count.
    """
    roster: list[tuple[Entrant, Agent]] = [
        (_entrant("broken"), Says("broken", None)),
        (_entrant("slow"), Says("slow", EMPTY, latency_ms=10**30)),
        (_entrant("fine"), Says("fine", EMPTY)),
    ]
    url = f"sqlite:///{tmp_path / 's.db'}"
    state = _season(url, tape, roster)
    assert state.ended
    events = _checked(url)
    assert [e["outcome"] for e in state.agents["broken"].entries] == ["fault", "fault"]
    assert [e["outcome"] for e in state.agents["slow"].entries] == ["answered", "answered"]
    with open_store(url) as store:
        summaries = {s.agent: s for s in summarise(store, "hostile")}
    assert summaries["broken"].no_decisions == {"league_fault": 2}
    assert summaries["slow"].decisions == summaries["fine"].decisions == 2
    assert all(
        int(e.payload["record"]["latency_ms"]) <= MAX_LATENCY_MS
        for e in events
        if e.kind == EventKind.MODEL_CALLED
    )


_BODIES: dict[str, bytes] = {
    "body_deep": DEEP.encode(),
    "body_deep_choices": b'{"choices":' + DEEP.encode() + b"}",
    "body_invalid_utf8": b"\xff\xfe\xfd",
    "body_utf8_in_text": b'{"choices": [{"message": {"content": "\xff\xfe{}"}}]}',
    "body_inf": b'{"choices": [{"message": {"content": 1e99999}}]}',
    "body_huge_int": b'{"choices": [{"message": {"content": ' + b"9" * 5000 + b"}}]}",
    "body_nul": b"\x00" * 64,
}


async def _over_the_fake(url: str, tape: MarketTape) -> SeasonState:
    async with FakeProvider() as fake:
        texts = ["deep", "escaped_surrogate", "control_chars", "huge_int",
                 "wrong_decisions", "zero_width_reason", "huge_text"]  # fmt: skip
        for name in texts:
            hostile, _ = HOSTILE[name]
            fake.enqueue(name, hostile, hostile)
            fake.script_model(name, EMPTY)
        for name, body in _BODIES.items():
            fake.respond_raw(name, 200, body, {"content-type": "application/json"})
        specs = [f"{n}=openai:{n}@{fake.url}" for n in [*texts, *_BODIES]]
        providers = providers_for([parse_agent_spec(s) for s in specs])
        async with Gateway(providers) as gateway:
            entrants, agents = build_roster(specs, [], gateway)
            with open_store(url) as store:
                return await run_season(
                    store, tape, entrants, agents, season_id="hostile", start=START,
                    end=TWO_CYCLES, sources=SOURCES,
                )  # fmt: skip


def test_hostile_answers_and_bodies_over_the_fake_provider(
    tmp_path: Path, tape: MarketTape, monkeypatch: pytest.MonkeyPatch
) -> None:
    """C-6, T-CYC-9: hostile answer texts (first and correction) and raw response bodies
    over the fake provider: reason codes and provider faults, recorded; the season ends.
    """
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    url = f"sqlite:///{tmp_path / 'f.db'}"
    state = asyncio.run(_over_the_fake(url, tape))
    assert state.ended
    events = _checked(url)
    for name in ("deep", "escaped_surrogate", "control_chars", "huge_int",
                 "wrong_decisions", "zero_width_reason", "huge_text"):  # fmt: skip
        code = HOSTILE[name][1]
        got = [(e["attempt"], _codes(e)) for e in state.agents[name].entries]
        assert got == [(1, [code]), (2, [code]), (1, [])], name
    for name in _BODIES:
        got = [(e["attempt"], _codes(e)) for e in state.agents[name].entries]
        assert got == [(1, ["provider_error"]), (1, ["provider_error"])], name
    called = [e for e in events if e.kind == EventKind.MODEL_CALLED]
    assert {e.payload["agent"] for e in called} == set(state.agents)
    with open_store(url) as store:
        summaries = {s.agent: s for s in summarise(store, "hostile")}
    for name in _BODIES:
        assert summaries[name].stranded, name  # never decided: the provider failed every call
        assert summaries[name].diagnosis()


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    first=st.text(max_size=200) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    second=st.text(max_size=200),
)
def test_any_text_as_answer_and_correction_completes_the_cycle(
    tmp_path_factory: pytest.TempPathFactory, tape: MarketTape, first: str, second: str
) -> None:
    """C-6: whatever a model sends, first or as its correction, the cycle finishes."""
    folder = tmp_path_factory.mktemp("any")
    roster: list[tuple[Entrant, Agent]] = [(_entrant("x"), _script(folder, "x", [first, second]))]
    url = f"sqlite:///{folder / 'a.db'}"
    state = _season(url, tape, roster, end=date(2025, 3, 4))
    assert state.ended
    _checked(url)
    entries = state.agents["x"].entries
    assert 1 <= len(entries) <= 2
    assert all(e["outcome"] == "answered" for e in entries)
