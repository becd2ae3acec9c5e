"""The one published prompt, character for character (SPEC D-ASK-1, D-ASK-2, C-2).

``SYSTEM_PROMPT`` is the seed's system prompt verbatim; the user message
follows the seed's layout line by line::

    Asset: BTC/USD
    Current price: 118412.50
    Horizon: 5 minutes from now.

    Last 180 one-minute candles (UTC, oldest first):
    14:32  O 118380.0  H 118421.5  L 118376.0  C 118402.0
    ...
    14:51  O 118401.0  H 118419.0  L 118395.5  C 118412.5

    Will the price at the end of the horizon be above or below 118412.50?
    Reply with the JSON object only.

Number formats, read off the seed: the current price (the round's entry
price) has at least two decimals (``118412.50``); candle prices are the exact
decimal with trailing zeros dropped and at least one decimal (``118380.0``,
``108246.36``). Candle times are the candle's open time, ``HH:MM`` UTC. The
text is pinned as ``PROMPT_VERSION``: any edit bumps it (C-3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from tradeleague.calls import Message
from tradeleague.formats.direction.candle import Candle
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.money import MICRO, Usd, micros_to_decimal

__all__ = [
    "ANSWER_SCHEMA",
    "SYSTEM_PROMPT",
    "answer_schema",
    "build_messages",
    "candle_line",
    "format_price",
    "render_user_message",
    "system_prompt",
]

SYSTEM_PROMPT: Final = (
    "You are a participant in a public forecasting benchmark.\n"
    "You will be shown recent one-minute candles for a single asset and asked\n"
    "which way the price will move over a fixed, short horizon.\n"
    "\n"
    "Answer with a single JSON object and nothing else:\n"
    '{"direction": "up" | "down", "rationale": "<one short sentence>"}\n'
    "\n"
    "Rules:\n"
    '- "direction" must be exactly "up" or "down". No neutral option, no abstention.\n'
    '- "rationale" must be at most 280 characters, in English, and must state\n'
    "  your actual reason.\n"
    "- No markdown, code fences, disclaimers, or any text outside the JSON object.\n"
    "- A short-horizon call like this is close to a coin flip. Commit to one side\n"
    "  anyway; hedged answers are discarded."
)
"""The seed's system prompt, every model, every round (D-ASK-1, version 2026-07-16.1)."""

ANSWER_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "direction": {"type": "string", "enum": ["up", "down"]},
        "rationale": {"type": "string", "maxLength": 280},
    },
    "required": ["direction", "rationale"],
    "additionalProperties": False,
}
"""The answer's JSON schema at the seed's rationale limit, for agents constrained by one."""

_LIMIT_TEXT: Final = "at most 280 characters"


def system_prompt(preset: DirectionPreset) -> str:
    """Return the system prompt with the preset's rationale limit (the seed's at the default).

    Another limit is another prompt text: give such a preset its own
    ``prompt_version`` (C-3).
    """
    return SYSTEM_PROMPT.replace(_LIMIT_TEXT, f"at most {preset.max_rationale} characters")


def answer_schema(preset: DirectionPreset) -> dict[str, Any]:
    """Return the answer's JSON schema with the preset's rationale limit."""
    properties = dict(ANSWER_SCHEMA["properties"])
    properties["rationale"] = {"type": "string", "maxLength": preset.max_rationale}
    return {**ANSWER_SCHEMA, "properties": properties}


def format_price(price: Usd, *, min_places: int) -> str:
    """Return the exact decimal of ``price`` with at least ``min_places`` decimals.

    Examples
    --------
    >>> format_price(Usd(118_380_000_000), min_places=1)
    '118380.0'
    >>> format_price(Usd(118_412_500_000), min_places=2)
    '118412.50'
    """
    fraction = price % MICRO
    digits = len(f"{fraction:06d}".rstrip("0")) if fraction else 0
    return f"{micros_to_decimal(price):.{max(min_places, digits)}f}"


def candle_line(candle: Candle) -> str:
    """Return one candle as the seed prints it: ``14:32  O 118380.0  H ...  C 118402.0``."""
    return (
        f"{candle.open_time:%H:%M}  O {format_price(candle.open, min_places=1)}"
        f"  H {format_price(candle.high, min_places=1)}"
        f"  L {format_price(candle.low, min_places=1)}"
        f"  C {format_price(candle.close, min_places=1)}"
    )


def render_user_message(
    preset: DirectionPreset, entry_price: Usd, candles: Sequence[Candle]
) -> str:
    """Return the user message: the same market data for every model (D-ASK-1, C-2)."""
    price = format_price(entry_price, min_places=2)
    lines = [
        f"Asset: {preset.asset}",
        f"Current price: {price}",
        f"Horizon: {preset.horizon_minutes} minutes from now.",
        "",
        f"Last {len(candles)} one-minute candles (UTC, oldest first):",
        *(candle_line(c) for c in candles),
        "",
        f"Will the price at the end of the horizon be above or below {price}?",
        "Reply with the JSON object only.",
    ]
    return "\n".join(lines)


def build_messages(
    preset: DirectionPreset, entry_price: Usd, candles: Sequence[Candle]
) -> tuple[Message, ...]:
    """Return the exact system and user messages the round sends to every model (D-ASK-1)."""
    return (
        Message("system", system_prompt(preset)),
        Message("user", render_user_message(preset, entry_price, candles)),
    )
