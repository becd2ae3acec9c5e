"""The answer schema and its parsing, with reason codes (SPEC T-ACT-1, T-ACT-2, T-CYC-7).

An answer is one JSON object (a Markdown code fence around it is removed):
``reasoning`` (text), ``market_context`` {``overall_sentiment``:
bullish|bearish|neutral, ``key_factors``: [text]}, ``decisions``: [...]. An
answer that does not parse or breaks this schema is rejected whole with an
answer reason code; a decision whose fields are malformed is rejected alone
with a decision reason code, so the rest still count. Everything is bounded
first: the answer's length, nesting, number of decisions and each text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any, Final

from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.money import MICRO
from tradeleague.untrusted import UntrustedJSON, clean_text, has_lone_surrogate, is_blank, loads

__all__ = [
    "ACTIONS",
    "Action",
    "Answer",
    "AnswerReject",
    "Item",
    "Reason",
    "parse_answer",
]


class Action(StrEnum):
    """The five actions of T-ACT-1."""

    OPEN_LONG = "open_long"
    OPEN_SHORT = "open_short"
    ADD = "add"
    CLOSE = "close"
    HOLD = "hold"


ACTIONS: Final = frozenset(a.value for a in Action)
SENTIMENTS: Final = frozenset({"bullish", "bearish", "neutral"})


class Reason(StrEnum):
    """Why an answer or one decision was rejected; the value is the code a model reads."""

    NOT_JSON = "not_json"
    BAD_SCHEMA = "bad_schema"
    TOO_MANY_DECISIONS = "too_many_decisions"
    BAD_ACTION = "bad_action"
    UNKNOWN_SYMBOL = "unknown_symbol"
    BENCHMARK = "benchmark_not_tradeable"
    NOT_ELIGIBLE = "not_eligible"
    MARKET_CLOSED = "market_closed"
    NO_PRICE = "no_price"
    BAD_SIZING = "bad_sizing"
    MISSING_FIELD = "missing_field"
    CONFIDENCE_GATE = "confidence_gate"
    INVALIDATION_SIDE = "invalidation_wrong_side"
    BAD_PERCENT_OF_POSITION = "bad_percent_of_position"
    DUPLICATE_SYMBOL = "one_action_per_symbol"
    CLOSED_SAME_CYCLE = "closed_in_opening_cycle"
    NO_REOPEN = "no_reopen"
    NO_POSITION = "no_position"
    ALREADY_OPEN = "already_open"
    ADD_NOT_IN_PROFIT = "add_not_in_profit"
    MAX_POSITIONS = "max_positions"
    OVER_BUDGET = "over_budget"
    TOO_SMALL = "quantity_too_small"


@dataclass(frozen=True, slots=True)
class AnswerReject:
    """An answer rejected whole: its code and one sentence."""

    reason: Reason
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Item:
    """One decision as read, before the rules: malformed fields are ``None`` plus ``problem``.

    Attributes
    ----------
    action
        The action text as given (bounded), checked against ``ACTIONS`` by the rules.
    symbol
        The symbol as given, upper-cased and bounded.
    percent_of_equity
        Hundredths of a percent, or ``None``.
    percent_of_position
        Hundredths of a percent, or ``None`` (a full close).
    confidence
        Hundredths (0.80 -> 80; finer values rounded down to the hundredth), or ``None``.
    invalidation_price
        Micro-dollars, or ``None``.
    thesis, invalidation, rationale
        Cleaned, bounded texts ("" when absent).
    problem
        A field that is present but malformed: its reason and sentence.
    """

    action: str
    symbol: str
    percent_of_equity: int | None = None
    percent_of_position: int | None = None
    confidence: int | None = None
    invalidation_price: int | None = None
    thesis: str = ""
    invalidation: str = ""
    rationale: str = ""
    problem: AnswerReject | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """A parsed answer: reasoning, context and the decisions in order."""

    reasoning: str
    sentiment: str
    key_factors: tuple[str, ...]
    items: tuple[Item, ...]


_FENCE: Final = re.compile(r"^\s*```[A-Za-z]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)
_SYMBOL_MAX: Final = 24


def _text(value: object, limit: int) -> str | None:
    if value is None:
        return ""
    if not isinstance(value, str):
        return None
    return clean_text(value).strip()[:limit]


def _number(value: object) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = Decimal(value.strip())
        except InvalidOperation:
            return None
    if isinstance(value, int):
        value = Decimal(value)
    if not isinstance(value, Decimal) or not value.is_finite():
        return None
    return value


def _hundredths(value: Decimal) -> int:
    return int((value * 100).to_integral_value(rounding="ROUND_FLOOR"))


def _item(raw: Any, preset: ThesisPreset) -> Item | AnswerReject:
    if not isinstance(raw, dict):
        return AnswerReject(Reason.BAD_SCHEMA, "each decision must be a JSON object")
    action = raw.get("action")
    symbol = raw.get("symbol")
    if not isinstance(action, str) or not isinstance(symbol, str):
        return AnswerReject(Reason.BAD_SCHEMA, "each decision needs an action and a symbol")
    limit = preset.text_max_chars
    texts = {k: _text(raw.get(k), limit) for k in ("thesis", "invalidation", "rationale")}
    base = Item(
        action=clean_text(action).strip().lower()[:_SYMBOL_MAX],
        symbol=clean_text(symbol).strip().upper()[:_SYMBOL_MAX],
        thesis=texts["thesis"] or "",
        invalidation=texts["invalidation"] or "",
        rationale=texts["rationale"] or "",
    )
    bad = [k for k, v in texts.items() if v is None]
    if bad:
        return replace(base, problem=AnswerReject(Reason.MISSING_FIELD, f"{bad[0]} must be text"))
    numbers: dict[str, int | None] = {}
    for key in ("percent_of_equity", "percent_of_position", "confidence", "invalidation_price"):
        raw_value = raw.get(key)
        if raw_value is None:
            numbers[key] = None
            continue
        number = _number(raw_value)
        if number is None or number <= 0:
            code = Reason.BAD_SIZING if key == "percent_of_equity" else Reason.MISSING_FIELD
            if key == "percent_of_position":
                code = Reason.BAD_PERCENT_OF_POSITION
            if key == "confidence":
                code = Reason.CONFIDENCE_GATE
            return replace(base, problem=AnswerReject(code, f"{key} must be a positive number"))
        if key == "invalidation_price":
            if number > Decimal(10) ** 12:
                return replace(
                    base,
                    problem=AnswerReject(
                        Reason.INVALIDATION_SIDE, "invalidation_price is too large"
                    ),
                )
            numbers[key] = int((number * MICRO).to_integral_value(rounding="ROUND_FLOOR"))
        elif number > 10_000:
            numbers[key] = 1_000_000
        else:
            numbers[key] = _hundredths(number)
    return replace(
        base,
        percent_of_equity=numbers["percent_of_equity"],
        percent_of_position=numbers["percent_of_position"],
        confidence=numbers["confidence"],
        invalidation_price=numbers["invalidation_price"],
    )


def parse_answer(text: str | None, preset: ThesisPreset) -> Answer | AnswerReject:
    """Parse an answer by T-ACT-2, bounded; reject it whole or return its decisions.

    Decisions with malformed fields come back as items with a ``problem``; an
    empty decision list is a valid answer (no trades, no correction round).
    """
    if text is None or not text.strip():
        return AnswerReject(Reason.NOT_JSON, "the answer is empty")
    if len(text) > preset.max_answer_chars:
        return AnswerReject(Reason.NOT_JSON, "the answer is too long")
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    try:
        data = loads(body.strip(), max_depth=16, parse_float=Decimal)
    except UntrustedJSON:
        return AnswerReject(Reason.NOT_JSON, "the answer is not one JSON object")
    if not isinstance(data, dict):
        return AnswerReject(Reason.NOT_JSON, "the answer is not a JSON object")
    if has_lone_surrogate(data):
        return AnswerReject(Reason.NOT_JSON, "the answer holds text that is not Unicode")
    reasoning = _text(data.get("reasoning"), preset.text_max_chars)
    if reasoning is None or is_blank(reasoning):  # zero-width characters are not a reason
        return AnswerReject(Reason.BAD_SCHEMA, "reasoning must be non-empty text")
    context = data.get("market_context")
    if not isinstance(context, dict):
        return AnswerReject(Reason.BAD_SCHEMA, "market_context must be an object")
    sentiment = context.get("overall_sentiment")
    if not isinstance(sentiment, str) or sentiment.strip().lower() not in SENTIMENTS:
        return AnswerReject(
            Reason.BAD_SCHEMA, "overall_sentiment must be bullish, bearish or neutral"
        )
    factors = context.get("key_factors", [])
    if not isinstance(factors, list) or not all(isinstance(f, str) for f in factors):
        return AnswerReject(Reason.BAD_SCHEMA, "key_factors must be a list of texts")
    decisions = data.get("decisions")
    if not isinstance(decisions, list):
        return AnswerReject(Reason.BAD_SCHEMA, "decisions must be a list")
    if len(decisions) > preset.max_decisions:
        return AnswerReject(
            Reason.TOO_MANY_DECISIONS, f"at most {preset.max_decisions} decisions are read"
        )
    items: list[Item] = []
    for raw in decisions:
        item = _item(raw, preset)
        if isinstance(item, AnswerReject):
            return item
        items.append(item)
    return Answer(
        reasoning,
        sentiment.strip().lower(),
        tuple(clean_text(f).strip()[: preset.text_max_chars] for f in factors[:20]),
        tuple(items),
    )
