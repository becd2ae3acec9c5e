"""The direction arena's event kinds and payload schemas (C-4, D-*).

The arena writes one stream (``direction`` by default) and stamps every event
with its ``season``; everything public is folded from these events
(`tradeleague.formats.direction.ledger`). Amounts are micro-unit integers as
decimal strings; times are ISO 8601 UTC text.

Visitors' calls (D-PUB-2) come from outside the arena's process: the site
records each one as ``VisitorCalled`` in the round's own visitors stream
(`visitors_stream`: ``<arena stream>/visitors/<round>``), which the site
writes and the arena only reads; the arena's stream (one writer, the host)
then records what it made of the call (``VisitorCallLogged`` naming the call,
the decision, the trade or the skip) like a model's answer.
"""

from __future__ import annotations

from typing import Final

from tradeleague.events.common import EventKind
from tradeleague.events.schema import (
    ARR,
    BOOL,
    INT,
    NULL,
    OBJ,
    STR,
    Field,
    opt,
    register,
    req,
)

__all__ = [
    "FORMAT",
    "ROUND_VOIDED",
    "TRADE_PLACED",
    "VISITOR_CALLED",
    "VISITOR_CALL_LOGGED",
    "visitors_stream",
]

FORMAT: Final = "direction"

TRADE_PLACED: Final = "TradePlaced"
ROUND_VOIDED: Final = "RoundVoided"
VISITOR_CALL_LOGGED: Final = "VisitorCallLogged"
VISITOR_CALLED: Final = "VisitorCalled"


def visitors_stream(stream: str, round_id: str) -> str:
    """Return the stream holding the visitors' calls on ``round_id`` of the arena ``stream``.

    One stream per round: the site appends to it (no process claims it, so any
    number of site processes may), the arena reads it; a round's calls are
    read without scanning any other round's.
    """
    return f"{stream}/visitors/{round_id}"


_SEASON = req("season", STR, doc="the season id, stamped on every event")
_ROUND = req("round", STR, doc="the round id")
_AGENT = req("agent", STR, doc="the model's board name")


def _d(kind: str, fields: tuple[Field, ...], doc: str) -> None:
    register(kind, FORMAT, (_SEASON, *fields), doc=doc)


_d(
    EventKind.SEASON_STARTED,
    (
        req("format", STR),
        req("started_at", STR),
        req("start_balance", STR),
        req("stake", STR),
        req("payout_ppm", INT),
        req("floor", STR),
        req("length_s", INT),
        req("prompt_version", STR),
        req("scoring_version", STR),
        req(
            "roster",
            ARR,
            doc="each entrant: name, provider, tier, model, kind; a model agent also its "
            "training cutoff and the cutoff's source (null when none was given)",
        ),
        opt("replay", BOOL, doc="true when replayed over past prices, false when played live"),
    ),
    "A season opens with its roster and rules.",
)
_d(
    EventKind.SEASON_ENDED,
    (req("reason", STR), req("ended_at", STR), req("balances", OBJ)),
    "A season ends (its length reached, or balances under the floor).",
)
_d(
    EventKind.ROUND_STARTED,
    (
        _ROUND,
        req("open_at", STR),
        req("expiry", STR),
        req("ask_at", STR),
        req("asset", STR),
        req("symbol", STR),
        req("entry_price", STR, NULL),
        req("candles", ARR),
        req("stake", STR),
        req("participants", ARR),
        req("prompt_version", STR),
    ),
    "A round opens: its times, entry price and the candles the prompt shows.",
)
_d(
    EventKind.DECISION_MADE,
    (
        _ROUND,
        _AGENT,
        req("direction", STR),
        req("rationale", STR),
        req("rationale_truncated", BOOL),
        req("answered_at", STR),
        req("latency_ms", INT),
        req("text", STR, NULL),
    ),
    "A model's valid answer: up or down, with its rationale.",
)
_d(
    EventKind.TURN_SKIPPED,
    (
        _ROUND,
        _AGENT,
        req("reason", STR, doc="the skip reason (D-SKP-1)"),
        req("detail", STR),
        opt("latency_ms", INT),
        opt("text", STR),
        opt("message", STR),
    ),
    "A model's turn is skipped: timeout, invalid, late, rejected, void.",
)
_d(
    TRADE_PLACED,
    (
        _ROUND,
        _AGENT,
        req("trade_id", STR),
        req("kind", STR),
        req("stake", STR),
        req("strike", STR),
        req("placed_at", STR),
        req("expiry", STR),
        req("duration_ms", INT),
        req("payout_ppm", INT),
    ),
    "The broker took a model's binary trade.",
)
_d(
    EventKind.TRADE_SETTLED,
    (
        _ROUND,
        _AGENT,
        req("trade_id", STR),
        req("kind", STR),
        req("outcome", STR),
        req("entry_price", STR),
        req("exit_price", STR),
        req("pnl", STR),
        req("payout_ppm", INT),
        req("closed_at", STR),
    ),
    "A trade closed at expiry: won, lost or tied.",
)
_d(
    ROUND_VOIDED,
    (_ROUND, req("reason", STR), opt("detail", STR)),
    "A round is void: every stake back.",
)
_d(
    EventKind.ROUND_FINISHED,
    (
        _ROUND,
        req("void", BOOL),
        req("label", STR),
        req("settled", INT),
        req("balances", OBJ, doc="each model's balance read back from the broker"),
    ),
    "A round is over; balances as the broker reports them (D-TRD-3).",
)
_d(
    VISITOR_CALL_LOGGED,
    (
        _ROUND,
        _AGENT,
        req("entrant", OBJ),
        opt("call", STR, doc="the id of the VisitorCalled event the arena took it from"),
    ),
    "The arena took a visitor's own call on a round (ranked apart, D-PUB-2).",
)
register(
    VISITOR_CALLED,
    FORMAT,
    (
        _ROUND,
        req("visitor", STR, doc="the visitor's name, normalised (the account is visitor:NAME)"),
        req("direction", STR, doc="up or down"),
        req("at", STR, doc="when the site took the call, UTC (the late rule reads it)"),
    ),
    doc="A visitor called a round on the site; hidden until the round expires (D-PUB-1, -2).",
)
