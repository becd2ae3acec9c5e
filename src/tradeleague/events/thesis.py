"""The thesis league's event kinds and payload schemas (C-4, T-*).

A thesis season is the stream ``thesis/<season id>``. Amounts are micro-unit
integers as decimal strings; times are ISO 8601 UTC text; symbols are provider
symbols in state and fills, normalised names in what a model or reader sees.
A cycle's events (its monitor checks since the cycle before, its picture, the
prices the board's no-skill null reads, every attempt and fill) are appended in
one transaction, so a season holds whole
cycles only and resumes by skipping the cycles it holds.
"""

from __future__ import annotations

from typing import Final

from tradeleague.events import streams
from tradeleague.events.common import FILL_FIELDS, EventKind
from tradeleague.events.schema import ARR, BOOL, INT, NULL, OBJ, STR, Field, opt, register, req

__all__ = [
    "AGENT_ENTERED",
    "ATTEMPT_JUDGED",
    "FORMAT",
    "INVALIDATION_BROKEN",
    "NULL_PRICES_READ",
    "POSITION_INVALIDATED",
    "season_stream",
]

FORMAT: Final = "thesis"

AGENT_ENTERED: Final = "AgentEntered"
ATTEMPT_JUDGED: Final = "AttemptJudged"
POSITION_INVALIDATED: Final = "PositionInvalidated"
INVALIDATION_BROKEN: Final = "InvalidationBroken"
NULL_PRICES_READ: Final = "NullPricesRead"

_ROUND = req("round", STR, doc="the cycle's instant, UTC")
_AGENT = req("agent", STR, doc="the agent's name")
_BOOK = req("book", OBJ, doc="the book after: portfolio state, theses, recent closes")


def season_stream(season_id: str) -> str:
    """Return the stream of season ``season_id`` (`tradeleague.events.streams.season_stream`)."""
    return streams.season_stream(FORMAT, season_id)


def _t(kind: str, fields: tuple[Field, ...], doc: str) -> None:
    register(kind, FORMAT, fields, doc=doc)


_t(
    EventKind.SEASON_STARTED,
    (
        req("format", STR),
        req("season", STR),
        req("start", STR),
        req("end", STR),
        req("crypto", ARR),
        req("stocks", ARR),
        req("benchmarks", ARR),
        req("sources", OBJ, doc="the crypto and stock folders (or providers)"),
        req("replay", BOOL),
        req("start_cash", STR),
        req("scoring_version", STR),
        req("prompt_version", STR),
    ),
    "A season opens: its window, universe, data and versions.",
)
_t(
    AGENT_ENTERED,
    (_AGENT, req("spec", STR), req("kind", STR), req("agentic", BOOL), req("cycle", INT)),
    "An agent enters at a cycle (its AccountOpened follows); T-AGT-1 allows mid-season.",
)
_t(
    EventKind.ROUND_STARTED,
    (
        _ROUND,
        req("index", INT, doc="the cycle's number, 0 first"),
        req("stocks_open", BOOL),
        req("screen", OBJ, doc="crypto and stocks: [{symbol, score}], names normalised"),
        req("rsi", OBJ, doc="SYMBOL: {4h, 1d, 1w}, 2-place decimal strings or null"),
        req("prices", OBJ, doc="SYMBOL: decimal string"),
    ),
    "A cycle's picture: the screen, RSI and prices every model is shown (T-CYC-1..3).",
)
_t(
    NULL_PRICES_READ,
    (
        _ROUND,
        req("index", INT, doc="the cycle's number"),
        req(
            "held",
            STR,
            NULL,
            doc="what a coin flipper may hold since the cycle before (the coin's pick then), "
            "normalised; null for nothing",
        ),
        req(
            "checks",
            OBJ,
            doc="each monitor check since the cycle before, UTC: the held symbol's price there, "
            "micro-dollars as an integer string, or null without one; empty with nothing held",
        ),
        req("price", STR, NULL, doc="the held symbol's price at the cycle, micro-dollars"),
        req("pick", STR, NULL, doc="the coin's pick: the first screened crypto with a price"),
        req("eligible", BOOL, doc="whether the pick may be opened at the cycle"),
    ),
    "The prices the board's no-skill null reads at a cycle, so a live season's line rests on "
    "its record alone (ST-2, T-MON-1).",
)
_t(
    ATTEMPT_JUDGED,
    (
        _ROUND,
        _AGENT,
        req("attempt", INT, doc="1, or 2 for the correction round"),
        req("outcome", STR, doc="the turn's outcome, or 'fault'"),
        req("raw_answer", STR, NULL),
        req("answer_reason", STR, NULL, doc="why the whole answer was rejected"),
        req("detail", STR),
        req("reasoning", STR, NULL),
        req("decisions", ARR, doc="Result.to_payload() with the model's texts"),
        req("equity", STR),
        req("cash", STR),
        req("positions", OBJ),
        _BOOK,
        opt("steps", INT, doc="tool steps a multi-step agent took (T-AGT-2)"),
    ),
    "One attempt's answer, validation and execution (T-CYC-7..10).",
)
_t(
    EventKind.ORDER_FILLED,
    (*FILL_FIELDS, _ROUND, req("by", STR, doc="'decision' or 'monitor'")),
    "A fill on an agent's account (folded by the portfolio projection).",
)
_t(
    POSITION_INVALIDATED,
    (
        _AGENT,
        req("time", STR),
        req("symbol", STR),
        req("level", STR),
        req("price", STR),
        req("quantity", STR),
        req("fee", STR),
        req("realised", STR),
        _BOOK,
        opt("broken_time", STR, doc="when the break was seen, if the position could not trade"),
        opt("broken_price", STR, doc="the price that broke the level then"),
    ),
    "The monitor closed a position whose invalidation level broke (T-MON-1).",
)
_t(
    INVALIDATION_BROKEN,
    (
        _AGENT,
        req("time", STR),
        req("symbol", STR),
        req("level", STR),
        req("price", STR, doc="the price that broke the level"),
        _BOOK,
    ),
    "The monitor saw a level break while the position could not trade (a stock while NYSE is "
    "closed); it is closed at the first check at which it trades (T-MON-1).",
)
_t(
    EventKind.ROUND_FINISHED,
    (_ROUND, req("index", INT), req("equity", OBJ, doc="agent: equity at the cycle's prices")),
    "A cycle's end: every agent's equity and gross exposure.",
)
_t(
    EventKind.SEASON_ENDED,
    (req("season", STR), req("end", STR), opt("reason", STR, NULL)),
    "The season's last monitor check has run.",
)
