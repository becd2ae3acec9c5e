"""The event kinds every format shares, and the payloads written alike everywhere.

The kinds are the `EventKind` names; a shared kind whose payload differs by
format (``RoundStarted``, ``DecisionMade``...) has its payload schema in each
format's module (`tradeleague.events.weights`, ``direction``, ``scenario``).
Here are the payloads every format writes alike: ``AccountOpened`` and
``ModelCalled``, whose one shape (version 2) is::

    {"v": 2, "agent": <agent id>, "round": <round id or null>,
     "record": <CallRecord.to_payload()>}

plus ``season`` where the writer stamps every event with its season (the
direction arena). `upcast_model_called` reads the two older shapes: the weights
league's record fields flat beside ``agent``, and the direction arena's
unversioned ``{"season", "round", "agent", "record"}``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Final

from tradeleague.events.schema import (
    COMMON,
    INT,
    NULL,
    OBJ,
    STR,
    opt,
    register,
    register_upcaster,
    req,
)

__all__ = [
    "MODEL_CALLED_VERSION",
    "EventKind",
    "model_called_payload",
    "model_called_record",
    "upcast_model_called",
]


class EventKind(enum.StrEnum):
    """The kinds shared by formats; any other ``PascalCase`` past-tense name is allowed too."""

    ACCOUNT_OPENED = "AccountOpened"
    PRICE_READ = "PriceRead"
    PRICE_HELD = "PriceHeld"
    PRICE_RELEASED = "PriceReleased"
    SEASON_STARTED = "SeasonStarted"
    SEASON_ENDED = "SeasonEnded"
    ROUND_STARTED = "RoundStarted"
    ROUND_FINISHED = "RoundFinished"
    TURN_ASKED = "TurnAsked"
    MODEL_CALLED = "ModelCalled"
    DECISION_MADE = "DecisionMade"
    NO_DECISION_MADE = "NoDecisionMade"
    TURN_SKIPPED = "TurnSkipped"
    ORDER_FILLED = "OrderFilled"
    TRADE_SETTLED = "TradeSettled"
    POSITION_LIQUIDATED = "PositionLiquidated"
    MASK_DRAWN = "MaskDrawn"


MODEL_CALLED_VERSION: Final = 2
"""The version of the one ``ModelCalled`` shape (see the module docstring)."""

ACCOUNT_FIELDS: Final = (req("account", STR, doc="the account (an agent id) within the stream"),)
FILL_FIELDS: Final = (
    *ACCOUNT_FIELDS,
    req("fill", OBJ, doc="Fill.to_payload(): exact value, fee and slippage in micro-units"),
)
"""The fields every ``OrderFilled`` holds; each format adds its own (a round, a bar)."""

register(
    EventKind.ACCOUNT_OPENED,
    COMMON,
    (*ACCOUNT_FIELDS, req("cash", STR, doc="the starting cash, micro-units")),
    doc="An account opens with its starting cash (folded by the portfolio projection).",
)

register(
    EventKind.MASK_DRAWN,
    COMMON,
    (
        req("v", INT, doc="the mask's version (market.mask.MASK_VERSION)"),
        req("seed", STR, doc="the season's seed the table was drawn from"),
        req("start", STR, doc="the season's first day (YYYY-MM-DD): day 1"),
        req("symbols", OBJ, doc="real symbol -> {as: pseudonym, factor: price factor}"),
        opt("season", STR, doc="the season, where the writer stamps it on every event"),
    ),
    doc="A masked season's mask table (market.mask), drawn once at its opening; hidden "
    "from pages and reports until the season ends.",
)

register(
    EventKind.MODEL_CALLED,
    COMMON,
    (
        req("v", INT, doc="the shape's version, 2"),
        req("agent", STR, doc="the agent the call was made for"),
        req("round", STR, NULL, doc="the round id (null for a call outside a round)"),
        req("record", OBJ, doc="CallRecord.to_payload(): one attempt of one model call"),
        opt("season", STR, doc="the season, where the writer stamps it on every event"),
    ),
    version=MODEL_CALLED_VERSION,
    doc="One attempt of one model call (C-5), what recorded-answer replays read back.",
)


def model_called_payload(
    *, agent: str, round: str | None, record: Mapping[str, object]
) -> dict[str, object]:
    """Return the ``ModelCalled`` payload of one call record (``CallRecord.to_payload()``)."""
    return {"v": MODEL_CALLED_VERSION, "agent": agent, "round": round, "record": dict(record)}


def _round_of(record: Mapping[str, object]) -> object:
    key = record.get("key")
    return key.get("round") if isinstance(key, Mapping) else None


def upcast_model_called(payload: Mapping[str, object]) -> dict[str, object]:
    """Return a ``ModelCalled`` payload of any shape in the current one (version 2).

    Raises
    ------
    ValueError
        If the payload holds no call record in any known shape.
    """
    nested = payload.get("record")
    if isinstance(nested, Mapping):
        if payload.get("v") == MODEL_CALLED_VERSION:
            return dict(payload)
        # the direction arena's unversioned shape: season, round, agent, record
        out = dict(payload)
        out["v"] = MODEL_CALLED_VERSION
        out.setdefault("round", _round_of(nested))
        return out
    if "key" not in payload:
        raise ValueError("no call record: neither 'record' nor a flat record's 'key'")
    # the weights league's first shape: the record's fields flat, plus 'agent'
    record = {k: v for k, v in payload.items() if k != "agent"}
    agent = payload.get("agent")
    if agent is None:
        key = record.get("key")
        agent = key.get("agent") if isinstance(key, Mapping) else None
    return {
        "v": MODEL_CALLED_VERSION,
        "agent": agent,
        "round": _round_of(record),
        "record": record,
    }


def model_called_record(payload: Mapping[str, object]) -> dict[str, object]:
    """Return the call record a ``ModelCalled`` payload of any shape holds (``to_payload()``).

    Raises
    ------
    ValueError
        If the payload holds no call record in any known shape.
    """
    record = upcast_model_called(payload)["record"]
    if not isinstance(record, Mapping):
        raise ValueError("'record' is not an object")
    return dict(record)


register_upcaster(EventKind.MODEL_CALLED, upcast_model_called)
