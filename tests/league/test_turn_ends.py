"""How each turn ended, read the same way for every format (``league.answers.turn_ends``).

The progress line and the per-agent summary count these endings; a thesis turn
is its attempts (T-CYC-9: the answer, then the correction if there was one).
"""

from __future__ import annotations

from datetime import UTC, datetime

from tradeleague.events import Event, EventKind
from tradeleague.events import thesis as tev
from tradeleague.league.answers import DECISION, NO_DECISION, SKIPPED, TurnEnd, turn_ends

AT = datetime(2025, 3, 3, 16, tzinfo=UTC)
C1, C2 = "2025-03-03T16:00:00.000000Z", "2025-03-04T16:00:00.000000Z"


def _attempt(agent: str, cycle: str, attempt: int, **payload: object) -> Event:
    body: dict[str, object] = {
        "round": cycle, "agent": agent, "attempt": attempt, "outcome": "answered",
        "answer_reason": None, "decisions": [],
    }  # fmt: skip
    body.update(payload)
    return Event("thesis/s", tev.ATTEMPT_JUDGED, body, AT)


def _finished(cycle: str) -> Event:
    return Event("thesis/s", EventKind.ROUND_FINISHED, {"round": cycle}, AT)


_REJECTED = {"action": "open_long", "symbol": "SPY", "status": "rejected",
             "reason_code": "benchmark_not_tradeable"}  # fmt: skip
_EXECUTED = {"action": "open_long", "symbol": "ETH", "status": "executed", "reason_code": None}


def test_thesis_turns_end_with_their_cycle_t_cyc_9() -> None:
    """T-CYC-9: a turn is a decision if either attempt counted, else it ends as its last did."""
    events = [
        _attempt("empty", C1, 1),
        _attempt("garbage", C1, 1, answer_reason="not_json"),
        _attempt("fixed", C1, 1, answer_reason="bad_schema"),
        _attempt("missed", C1, 1, decisions=[_REJECTED]),
        _attempt("half", C1, 1, decisions=[_EXECUTED, _REJECTED]),
        _attempt("down", C1, 1, outcome="provider_error"),
        _attempt("broken", C1, 1, outcome="fault"),
        _attempt("garbage", C1, 2, answer_reason="not_json"),
        _attempt("fixed", C1, 2, decisions=[_EXECUTED]),
        _attempt("missed", C1, 2, answer_reason="too_many_decisions"),
        _attempt("half", C1, 2, answer_reason="not_json"),
    ]
    assert len(list(turn_ends(events))) == 7  # the end of the events closes the open turns
    ends = list(turn_ends([*events, _finished(C1), _attempt("empty", C2, 1)]))
    assert ends == [
        TurnEnd("empty", DECISION),
        TurnEnd("garbage", NO_DECISION, "not_json"),
        TurnEnd("fixed", DECISION),
        TurnEnd("missed", NO_DECISION, "too_many_decisions"),
        TurnEnd("half", DECISION),  # its first answer traded
        TurnEnd("down", NO_DECISION, "provider_error"),
        TurnEnd("broken", SKIPPED, "league_fault"),
        TurnEnd("empty", DECISION),  # the next cycle's, at the end of the events
    ]


def test_entry_events_are_one_turn_each() -> None:
    """Weights and direction record one entry per turn: each is an ending at once."""
    events = [
        Event("weights/s", EventKind.DECISION_MADE, {"agent": "a"}, AT),
        Event("weights/s", EventKind.NO_DECISION_MADE, {"agent": "b", "reason_code": "x"}, AT),
        Event("direction", EventKind.TURN_SKIPPED, {"agent": "c", "reason": "timeout"}, AT),
        Event("weights/s", EventKind.ROUND_FINISHED, {"round": "r"}, AT),
    ]
    assert list(turn_ends(events)) == [
        TurnEnd("a", DECISION),
        TurnEnd("b", NO_DECISION, "x"),
        TurnEnd("c", SKIPPED, "timeout"),
    ]
