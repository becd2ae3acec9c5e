"""The weights league's events: its stream, kinds, payload schemas and payload helpers (C-4, W-*).

Every step of a weights season is one of these facts in the stream
``weights/<season id>`` (`season_stream`); the league state, the tables, the
report and the ``weights_entries`` projection are folds over them. Amounts are
micro-unit integers as decimal strings; times are ISO 8601 UTC text
(`tradeleague.events.utc_iso`, `iso` here).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Final, Protocol

from tradeleague.events import streams
from tradeleague.events.base import Event, utc_iso
from tradeleague.events.common import FILL_FIELDS, EventKind
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
    "AGENT_CREATED",
    "AGENT_PAUSED",
    "AGENT_RESUMED",
    "ENTRY_KINDS",
    "FORMAT",
    "KEY_CHANGED",
    "MARKET_CLOSED",
    "PROMPT_CHANGED",
    "STRATEGY_SUMMARIZED",
    "STREAM_PREFIX",
    "UNIVERSE_CHOSEN",
    "UNIVERSE_ROW_FIELDS",
    "Book",
    "book_payload",
    "event",
    "iso",
    "season_stream",
]

FORMAT: Final = "weights"

STREAM_PREFIX: Final = streams.stream_prefix(FORMAT)
"""Every weights season's stream starts with this."""


def season_stream(season_id: str) -> str:
    """Return the stream of season ``season_id`` (`tradeleague.events.streams.season_stream`)."""
    return streams.season_stream(FORMAT, season_id)


def event(stream: str, kind: str, payload: Mapping[str, object], at: datetime) -> Event:
    """Return an event of ``kind`` in ``stream`` at ``at``."""
    return Event(stream, kind, payload, at)


class Book(Protocol):
    """What an entry's book fields are read from: a portfolio's cash and positions."""

    @property
    def cash(self) -> int:
        """Cash in micro-units."""
        ...

    @property
    def positions(self) -> Mapping[str, int]:
        """Signed quantity held of each symbol, in micro-units."""
        ...


def book_payload(portfolio: Book, value: int) -> dict[str, object]:
    """Return the value, cash and holdings fields an entry carries."""
    return {
        "value": str(value),
        "cash": str(int(portfolio.cash)),
        "holdings": {s: str(int(q)) for s, q in sorted(portfolio.positions.items())},
    }


def iso(moment: datetime) -> str:
    """Return ``moment`` as canonical UTC text."""
    return utc_iso(moment)


AGENT_CREATED: Final = "AgentCreated"
PROMPT_CHANGED: Final = "PromptChanged"
KEY_CHANGED: Final = "KeyChanged"
AGENT_PAUSED: Final = "AgentPaused"
AGENT_RESUMED: Final = "AgentResumed"
MARKET_CLOSED: Final = "MarketClosed"
STRATEGY_SUMMARIZED: Final = "StrategySummarized"
UNIVERSE_CHOSEN: Final = "UniverseChosen"

ENTRY_KINDS: Final = (
    EventKind.DECISION_MADE.value,
    EventKind.NO_DECISION_MADE.value,
    EventKind.TURN_SKIPPED.value,
)
"""The three kinds that are an entry in an agent's record (W-SCO-1)."""


_ROUND = req("round", STR, doc="the round's hour, UTC")
_AGENT = req("agent", STR, doc="the agent id")
_BOOK: Final = (
    req("value", STR, doc="the portfolio's value at the round's prices"),
    req("cash", STR),
    req("holdings", OBJ, doc="symbol: quantity, micro-units"),
)
_ASKED: Final = (
    req("asked_at", STR),
    req("outcome", STR, doc="the model call's outcome"),
    req("text", STR, NULL, doc="the answer's raw text"),
    req("latency_ms", INT),
)


def _w(kind: str, fields: tuple[Field, ...], doc: str) -> None:
    register(kind, FORMAT, fields, doc=doc)


_w(
    EventKind.SEASON_STARTED,
    (
        req("format", STR),
        req("season", STR),
        req("start", STR),
        req("end", STR),
        req("symbols", ARR),
        req("decimals", OBJ),
        req("source", STR),
        req("synthetic", BOOL),
        req("replay", BOOL),
        req("start_cash", STR),
        req("scoring_version", STR),
        req("prompt_version", STR),
    ),
    "A season opens: its window, symbols, price source and versions.",
)
UNIVERSE_ROW_FIELDS: Final = (
    "symbol",
    "aggregator",
    "token",
    "decimals",
    "answer",
    "reported_decimals",
    "updated_at",
    "paused",
    "multiplier",
    "price",
    "invalid",
    "supply",
    "supply_decimals",
    "value",
    "rank",
    "chosen",
    "left_out",
    "error",
)
"""The fields of each row of ``UniverseChosen.rows``, in order (one symbol on record each)."""

_w(
    UNIVERSE_CHOSEN,
    (
        req("season", STR),
        req("read_at", STR, doc="when the registry's feeds and supplies were read, UTC"),
        req("registry", STR, doc="the feed registry's name"),
        req("chain_id", INT, NULL, doc="the chain the registry names, if any"),
        req("multiplier_decimals", INT, doc="the scale of the tokens' multiplier()"),
        req("node_block_time", STR, NULL, doc="the node's latest block time at the read"),
        req("size", INT, doc="how many symbols the rule keeps"),
        req("stale_before", STR, NULL, doc="a feed last updated before this was stale"),
        req("symbols", ARR, doc="the universe, sorted"),
        req(
            "rows",
            ARR,
            doc="one object per symbol on record, with the fields of UNIVERSE_ROW_FIELDS: "
            "addresses and decimals on record; the feed's raw answer, decimals, update time, "
            "paused flag and multiplier; the reference price or why it is invalid; the raw "
            "supply and its decimals; value outstanding (micro-dollars); rank; chosen; "
            "left_out (why not chosen); error",
        ),
        opt("taken_from", STR, doc="a replay's universe: the recorded season it was taken from"),
    ),
    "A season's universe, built from the chain at its start with every input.",
)
_w(
    AGENT_CREATED,
    (
        _AGENT,
        req("name", STR),
        req("owner", STR),
        req("division", STR),
        req("spec", STR),
        req("prompt", STR),
        opt("key_last4", STR, NULL),
    ),
    "An agent joins (its AccountOpened follows).",
)
_w(PROMPT_CHANGED, (_AGENT, req("prompt", STR)), "An agent's prompt changes.")
_w(KEY_CHANGED, (_AGENT, req("last4", STR)), "An agent's model key changes.")
_w(
    AGENT_PAUSED,
    (_AGENT, req("reason", STR), opt("turns", INT)),
    "An agent is paused (by its owner, or after failing key turns).",
)
_w(AGENT_RESUMED, (_AGENT,), "A paused agent plays again.")
_w(
    EventKind.PRICE_READ,
    (
        _ROUND,
        req("symbol", STR),
        req("answer", STR, NULL),
        req("decimals", INT, NULL),
        req("updated_at", STR, NULL),
        req("paused", BOOL, NULL),
        req("multiplier", ARR, NULL),
        req("price", STR, NULL),
        req("invalid", STR, NULL),
        req("error", STR, NULL),
    ),
    "One symbol's price as read at a round.",
)
_w(
    EventKind.PRICE_HELD,
    (_ROUND, req("symbol", STR), req("before", STR), req("after", STR)),
    "A symbol's price jumped too far: it is held until released.",
)
_w(EventKind.PRICE_RELEASED, (req("symbol", STR), req("by", STR)), "An operator releases a hold.")
_w(
    MARKET_CLOSED,
    (
        _ROUND,
        req("read_at", STR),
        req("reasons", ARR),
        req("status", STR),
        req("invalid", OBJ),
    ),
    "A round is not played: the market is closed or its prices are unusable.",
)
_w(
    EventKind.ROUND_STARTED,
    (
        _ROUND,
        req("read_at", STR),
        req("prices", OBJ),
        req("halted", OBJ),
        req("participants", ARR),
        req("due", ARR),
        req("open_round", BOOL),
        req("forced", BOOL),
        req("source", STR),
        req("synthetic", BOOL),
        req("scoring_version", STR),
        req("prompt_version", STR),
    ),
    "A round starts at its prices, with its participants.",
)
_w(
    EventKind.DECISION_MADE,
    (
        _ROUND,
        _AGENT,
        *_BOOK,
        *_ASKED,
        req("reason_code", NULL),
        req("targets", OBJ),
        req("reason", STR),
        req("capped", ARR),
        req("reason_cut", BOOL),
        req("fills", INT),
        req("scaled", BOOL),
    ),
    "A valid answer, rebalanced (W-EXE).",
)
_w(
    EventKind.NO_DECISION_MADE,
    (_ROUND, _AGENT, *_BOOK, *_ASKED, req("reason_code", STR), req("detail", STR)),
    "An answer that is no decision (W-VAL), the portfolio unchanged.",
)
_w(
    EventKind.TURN_SKIPPED,
    (_ROUND, _AGENT, *_BOOK, req("reason_code", STR), opt("fault", STR)),
    "An agent's turn is skipped (not due, paused, a league fault).",
)
_w(
    EventKind.ORDER_FILLED,
    (*FILL_FIELDS, _ROUND),
    "One fill of a rebalance.",
)
_w(
    EventKind.ROUND_FINISHED,
    (_ROUND, req("ranked", ARR, doc="the divisions ranked after this round")),
    "A round's entries are all recorded.",
)
_w(
    STRATEGY_SUMMARIZED,
    (
        _AGENT,
        req("text", STR),
        req("prompt_at", STR),
        req("summary_version", STR),
        req("model", STR),
    ),
    "The house model's summary of an agent's prompt.",
)
