"""User and model text in the public payloads is plain text (C-10, D-PUB-2, D-PUB-3).

A visitor's name is user text, and an agent's error or a model's rationale is
model text: every public payload shows them HTML-escaped with invisible
characters removed, while the record keeps model text as it came (C-4). A
visitor's name is normalised once, when the call is taken (its invisible
characters dropped: it is the visitor's identity), and kept so; markup in it
stays in the record and is escaped in every payload.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

from direction_helpers import START, contestant  # type: ignore[import-not-found]

from tradeleague.agents.base import Turn
from tradeleague.broker import PaperBroker
from tradeleague.calls import Outcome
from tradeleague.clock import ReplayClock
from tradeleague.feeds.candles import FrozenCandles
from tradeleague.formats.direction import DirectionPreset
from tradeleague.formats.direction.board import build_board
from tradeleague.formats.direction.publish import (
    board_payload,
    changelog_payload,
    model_log_payload,
    report_payload,
    roster_payload,
    round_payload,
)
from tradeleague.league.direction import DirectionArena, load_ledger
from tradeleague.league.pacing import ReplayPacing
from tradeleague.market import Dataset
from tradeleague.store import Store

VISITOR = "<script>alert(1)</script>\u200b"
ACCOUNT = "visitor:<script>alert(1)</script>"  # normalised when the call is taken
SHOWN = "visitor:&lt;script&gt;alert(1)&lt;/script&gt;"
RAISED = "<img src=x onerror=alert(1)>\u202e"
RATIONALE = "<b>Up</b>\u200d, surely."


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


async def test_direction_user_and_model_text_is_plain_in_every_payload(
    store: Store, synthetic_btc: Dataset
) -> None:
    """C-10, D-PUB-2, D-PUB-3: a visitor named with markup is shown escaped, never as markup.

    So are an agent's error (in the skip detail) and a model's rationale; the
    stored events keep the raw text (C-4).
    """
    clock = ReplayClock(START)
    candles = FrozenCandles(synthetic_btc, clock)
    box: list[DirectionArena] = []

    def up(turn: Turn) -> tuple[Outcome, str, int]:
        box[0].visitor_call(VISITOR, "down")
        return Outcome.ANSWERED, f'{{"direction": "up", "rationale": "{RATIONALE}"}}', 1_000

    def raises(turn: Turn) -> tuple[Outcome, str, int]:
        raise RuntimeError(RAISED)

    preset = DirectionPreset()
    arena = DirectionArena(
        store=store,
        roster=[contestant("alpha", up), contestant("broken", raises)],
        candles=candles,
        broker=PaperBroker(candles),
        clock=clock,
        pacing=ReplayPacing(clock),
        preset=preset,
    )
    box.append(arena)
    for k in range(2):
        await arena.run_round(START + k * preset.round_length)

    raw = [s.event.payload for s in store.events("direction")]
    assert any(p.get("agent") == ACCOUNT for p in raw)  # the record keeps the markup
    (season,) = load_ledger(store).seasons.values()
    board = build_board(season, scoring_version=preset.scoring_version, sparkline=preset.sparkline)
    visitor = season.visitors[ACCOUNT]
    payloads: dict[str, Any] = {
        "rounds": [round_payload(season, r) for r in season.rounds.values()],
        "visitor_log": model_log_payload(season, visitor),
        "broken_log": model_log_payload(season, season.roster[1]),
        "board": board_payload(board),
        "report": report_payload(board),
        "roster": roster_payload(season),
        "changelog": changelog_payload(load_ledger(store)),
    }
    for where, payload in payloads.items():
        for text in _strings(payload):
            assert not {"<", ">", "\u200b", "\u200d", "\u202e"} & set(text), (where, text)

    (shown_visitor,) = payloads["board"]["visitors"]
    assert shown_visitor["name"] == SHOWN
    assert payloads["visitor_log"]["model"]["name"] == SHOWN
    assert len(payloads["visitor_log"]["rows"]) == 2
    for round_body in payloads["rounds"]:
        calls = {c["model"]: c for c in round_body["calls"]}
        assert set(calls) == {"alpha", "broken", SHOWN}
        assert calls["alpha"]["rationale"] == html.escape("<b>Up</b>, surely.")
        assert html.escape("<img src=x onerror=alert(1)>") in calls["broken"]["detail"]
