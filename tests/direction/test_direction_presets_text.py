"""Ids, candles off the grid, C-10 text, preset numbers, help text (D-RND-1, D-ASK-3, C-10)."""

from __future__ import annotations

from datetime import timedelta

from direction_helpers import START, contestant  # type: ignore[import-not-found]

from tradeleague.agents.spec import AGENT_OPTION_HELP, agent_option_help
from tradeleague.calls import Outcome
from tradeleague.clock import ReplayClock
from tradeleague.feeds.candles import FrozenCandles
from tradeleague.formats.direction import DirectionPreset, parse_answer
from tradeleague.formats.direction.answer import MAX_RATIONALE, Answer
from tradeleague.formats.direction.baselines import BASELINE_NAMES
from tradeleague.formats.direction.prompt import SYSTEM_PROMPT, answer_schema, build_messages
from tradeleague.formats.direction.publish import model_log_payload, round_payload
from tradeleague.formats.direction.timing import round_id
from tradeleague.league.direction import load_ledger, replay_direction
from tradeleague.market import Dataset
from tradeleague.money import usd
from tradeleague.store import Store


def test_direction_round_ids_are_unique_per_open() -> None:
    """D-RND-1: drill rounds in one minute get distinct ids; the seed's ids are unchanged."""
    assert round_id(START) == "20250901T0600Z"
    assert round_id(START + timedelta(minutes=5)) == "20250901T0605Z"
    drills = [round_id(START + timedelta(seconds=s)) for s in range(0, 60, 5)]
    assert len(set(drills)) == 12
    assert drills[1] == "20250901T060005Z"


async def test_direction_frozen_history_off_the_minute_grid(synthetic_btc: Dataset) -> None:
    """D-RND-1, C-11: an open off the minute grid still gets ``count`` closed candles."""
    moment = START + timedelta(seconds=35)
    candles = FrozenCandles(synthetic_btc, ReplayClock(moment))
    off = await candles.history("BTCUSDT", moment, 30)
    on = await candles.history("BTCUSDT", START, 30)
    assert len(off) == 30
    assert off == on
    assert off[-1].close_time == START


XSS = '<img src=x onerror=alert(1)>\u202eevil\u200b & "q"'


async def test_direction_public_rationales_are_plain_text(
    store: Store, synthetic_btc: Dataset
) -> None:
    """C-10, C-4: rationales and answer texts are escaped in payloads, kept raw in the record."""
    text = '{"direction": "up", "rationale": "' + XSS.replace('"', '\\"') + '"}'
    roster = [contestant("m", lambda turn: (Outcome.ANSWERED, text, 1_000))]
    await replay_direction(
        store, synthetic_btc, roster, start=START, end=START + timedelta(minutes=5)
    )
    (decision,) = [s.event.payload for s in store.events("direction")
                   if s.event.kind == "DecisionMade"]  # fmt: skip
    assert decision["rationale"] == XSS.replace("\u202e", "").replace("\u200b", "")
    assert decision["text"] == text
    season = load_ledger(store).current
    assert season is not None
    (view,) = season.rounds.values()
    log = model_log_payload(season, season.roster[0])
    page = round_payload(season, view)
    shown = "&lt;img src=x onerror=alert(1)&gt;evil &amp; &quot;q&quot;"
    assert log["rows"][0]["rationale"] == shown
    assert page["calls"][0]["rationale"] == shown
    assert "<img" not in page["calls"][0]["text"]
    assert "\u202e" not in str(page)
    assert "\u200b" not in str(page)


async def test_direction_rationale_limit_is_a_preset_number(
    store: Store, synthetic_btc: Dataset
) -> None:
    """D-ASK-3 (and SPEC: every number is a preset default): the 280 limit comes from the preset."""
    assert DirectionPreset().max_rationale == MAX_RATIONALE == 280
    short = DirectionPreset(max_rationale=10)
    parsed = parse_answer('{"direction": "up", "rationale": "' + "a" * 20 + '"}', max_rationale=10)
    assert isinstance(parsed, Answer)
    assert parsed.rationale == "a" * 10
    assert parsed.rationale_truncated
    system = build_messages(short, usd(1), [])[0].content
    assert "at most 10 characters" in system
    assert build_messages(DirectionPreset(), usd(1), [])[0].content == SYSTEM_PROMPT
    assert answer_schema(short)["properties"]["rationale"]["maxLength"] == 10
    text = '{"direction": "down", "rationale": "' + "b" * 50 + '"}'
    roster = [contestant("m", lambda turn: (Outcome.ANSWERED, text, 1_000))]
    end = START + timedelta(minutes=5)
    await replay_direction(store, synthetic_btc, roster, start=START, end=end, preset=short)
    (decision,) = [s.event.payload for s in store.events("direction")
                   if s.event.kind == "DecisionMade"]  # fmt: skip
    assert decision["rationale"] == "b" * 10
    assert decision["rationale_truncated"] is True
    assert decision["text"] == text


def test_direction_agent_help_lists_the_formats_baselines() -> None:
    """(no SPEC rule) ``--agent`` help names the given baselines, the weights text unchanged."""
    text = agent_option_help(BASELINE_NAMES)
    assert f"baseline: {', '.join(BASELINE_NAMES)})" in text
    assert "buy_and_hold" not in text
    assert (
        agent_option_help(("cash", "buy-and-hold", "equal-weight", "momentum", "coin-flip"))
        == AGENT_OPTION_HELP
    )
