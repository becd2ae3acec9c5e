"""What an agent is asked: one message, built from the round's facts (W-ASK-1, W-ASK-2, C-3).

The message holds, and only holds: the time; every symbol's price with its
return over the last 1, 5 and 20 trading days (``unknown`` without history);
the halted symbols; the portfolio's value and weights; the owner's prompt word
for word; and the required answer format. No tools. The template is pinned as
``PROMPT_VERSION``: any edit to the text below must bump it (C-3).

The required answer format (W-ASK-2, W-VAL-1, W-VAL-2) is one JSON object with
exactly two keys and nothing before or after it::

    {"targets": {"SPY": 25, "QQQ": 12.5}, "reason": "One sentence."}

``targets`` maps league symbols to percent of the portfolio (0 to 100, at most
two decimal places, adding up to at most 100); a symbol left out has target 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any, Final

from tradeleague.calls import Message
from tradeleague.events import utc_iso
from tradeleague.formats.weights.preset import WeightsPreset
from tradeleague.money import format_usd, round_half_up_2dp

__all__ = [
    "ANSWER_FORMAT",
    "RETURN_PERIODS",
    "AskFacts",
    "SymbolLine",
    "answer_schema",
    "build_messages",
    "market_lines",
    "render_message",
]

RETURN_PERIODS: Final = (1, 5, 20)
"""The trading-day periods of the returns shown (W-ASK-1)."""

ANSWER_FORMAT: Final = (
    "Answer with one JSON object and nothing before or after it, with exactly two keys:\n"
    '{"targets": {"SYMBOL": PERCENT, ...}, "reason": "ONE SENTENCE"}\n'
    '- "targets": the percent of the portfolio to hold in each league symbol, a number '
    "from 0 to 100 with at most two decimal places; together at most 100. A symbol left "
    "out has target 0; what the targets do not use stays in cash. A target above "
    "{cap}% is cut to {cap}%. A target for a halted symbol leaves that holding as it is.\n"
    '- "reason": one sentence, not empty; a longer one is cut to {chars} characters.'
)
"""The answer-format paragraph of the template (part of ``PROMPT_VERSION``)."""


@dataclass(frozen=True, slots=True)
class SymbolLine:
    """One symbol's row: its price and its trailing returns (``None`` = unknown)."""

    symbol: str
    price: int
    returns: Mapping[int, Fraction | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class AskFacts:
    """The facts of one turn: identical for every agent of the round but the portfolio.

    Attributes
    ----------
    time
        The round's time.
    lines
        Every league symbol's row, in symbol order.
    halted
        The halted symbols.
    value
        The portfolio's value at the round's prices (micro-dollars).
    weights
        Symbol -> weight of each holding as a fraction of ``value``; cash is the rest.
    prompt
        The owner's prompt, word for word.
    when
        The time as shown instead of ``time`` (a masked season's ``day N HH:MM
        UTC``), or None to show ``time``.
    """

    time: datetime
    lines: Sequence[SymbolLine]
    halted: frozenset[str]
    value: int
    weights: Mapping[str, Fraction]
    prompt: str
    when: str | None = None


def _pct(value: Fraction) -> str:
    return f"{round_half_up_2dp(value * 100):+.2f}%"


def _ret(value: Fraction | None) -> str:
    return "unknown" if value is None else _pct(value)


def market_lines(lines: Sequence[SymbolLine]) -> tuple[str, ...]:
    """Return the price lines of the message, the same for every agent of a round.

    A round renders them once and passes them to `render_message` for each agent.
    """
    out = []
    for line in lines:
        rets = " ".join(f"{k}d {_ret(line.returns.get(k))}" for k in RETURN_PERIODS)
        out.append(f"{line.symbol} {format_usd(line.price, 6)} | {rets}")
    return tuple(out)


def render_message(
    facts: AskFacts, preset: WeightsPreset, market: Sequence[str] | None = None
) -> str:
    """Return the text of the one message of W-ASK-1 (template ``PROMPT_VERSION``).

    ``market`` is ``market_lines(facts.lines)`` when the caller rendered it already.
    """
    out = [
        "You manage a paper portfolio in a simulated league. No real orders are placed.",
        f"Time: {utc_iso(facts.time)[:16]}Z (UTC)" if facts.when is None else f"Time: {facts.when}",
        "",
        "Prices (USD per token) and returns over the last 1, 5 and 20 trading days:",
    ]
    out.extend(market_lines(facts.lines) if market is None else market)
    halted = ", ".join(sorted(facts.halted)) or "none"
    out += ["", f"Halted symbols (not traded this round): {halted}", ""]
    out.append(f"Portfolio value: {format_usd(facts.value)} USD")
    held = [f"{s} {round_half_up_2dp(w * 100)}%" for s, w in sorted(facts.weights.items())]
    cash = 1 - sum(facts.weights.values(), Fraction(0)) if facts.value > 0 else Fraction(1)
    held.append(f"cash {round_half_up_2dp(cash * 100)}%")
    out.append("Weights: " + ", ".join(held))
    out += ["", "Owner's prompt:", facts.prompt, ""]
    out.append(
        ANSWER_FORMAT.replace("{cap}", str(Fraction(preset.max_weight_bps, 100))).replace(
            "{chars}", str(preset.reason_max_chars)
        )
    )
    return "\n".join(out)


def build_messages(
    facts: AskFacts, preset: WeightsPreset, market: Sequence[str] | None = None
) -> tuple[Message, ...]:
    """Return the messages of one turn: exactly one user message (W-ASK-1).

    ``market``: the round's `market_lines`, rendered once for every agent.
    """
    return (Message("user", render_message(facts, preset, market)),)


def answer_schema(symbols: Sequence[str]) -> dict[str, Any]:
    """Return the JSON schema of the answer format, for agents constrained by a schema."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["targets", "reason"],
        "properties": {
            "targets": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    s: {"type": "number", "minimum": 0, "maximum": 100} for s in sorted(symbols)
                },
            },
            "reason": {"type": "string", "minLength": 1},
        },
    }
