"""Reading an answer: extracted leniently, read strictly (SPEC D-ASK-3, C-6, C-10).

The checks, in this fixed order; the first that fails makes the answer
``invalid`` (a skip, D-SKP-1) with a reason code, and nothing is guessed:

1. ``no_json_object``: the text holds no JSON object. Objects are dug out
   of anything around them (prose, Markdown code fences) by decoding at
   every ``{``; that is the only change the arena makes to an answer (C-6).
2. ``no_direction``: no object found has a ``direction`` key.
3. ``conflicting_objects``: two objects name different directions (ours:
   picking one would be a guess); objects that agree count as one answer.
4. ``bad_direction``: ``direction`` is not exactly the string ``"up"`` or
   ``"down"``. ``"Up"``, ``"UP"``, ``"neutral"``, ``null``, a refusal: all invalid.

The rationale does not decide validity (D-SKP-1 names only the three
failures above). Ours: a missing or non-string rationale reads as empty;
invisible characters are removed (C-10); one longer than the preset's limit
(``DirectionPreset.max_rationale``, 280 characters by default) is shown cut
there and flagged ``rationale_truncated``; lone surrogates become U+FFFD.
Objects nested deeper than ``untrusted.MAX_DEPTH``, and answers longer than
``MAX_ANSWER_CHARS``, hold no object that is read. The raw answer text is
kept whole in the call record either way (C-4). Extra keys are ignored.
"""

from __future__ import annotations

import enum
import json
import unicodedata
from dataclasses import dataclass
from typing import Any, Final, Literal

from tradeleague.untrusted import UntrustedJSON, clean_value, raw_decode

__all__ = [
    "MAX_ANSWER_CHARS",
    "MAX_RATIONALE",
    "Answer",
    "Invalid",
    "InvalidReason",
    "extract_objects",
    "parse_answer",
    "strip_invisible",
]

MAX_RATIONALE: Final = 280
"""The seed's rationale length limit, in characters (D-ASK-3): the default of
``DirectionPreset.max_rationale`` and of ``parse_answer``'s ``max_rationale``."""

_DECODER: Final = json.JSONDecoder()

MAX_ANSWER_CHARS: Final = 100_000
"""The longest answer searched for objects; a longer one holds none (ours)."""


class InvalidReason(enum.StrEnum):
    """Why an answer is ``invalid``, in the order the checks run."""

    NO_JSON_OBJECT = "no_json_object"
    NO_DIRECTION = "no_direction"
    CONFLICTING_OBJECTS = "conflicting_objects"
    BAD_DIRECTION = "bad_direction"


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """A readable answer: a direction and the rationale given with it."""

    direction: Literal["up", "down"]
    rationale: str
    rationale_truncated: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Invalid:
    """An unreadable answer (the ``invalid`` skip) and why."""

    reason: InvalidReason
    detail: str


def strip_invisible(text: str) -> str:
    """Return ``text`` without format characters (zero-width, bidi controls) (C-10)."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def extract_objects(text: str) -> list[dict[str, Any]]:
    """Return every top-level JSON object found in ``text``, in order.

    Decoding is tried at each ``{``; a decoded object's inside is not searched
    again, so nested objects are not counted twice. An object nested deeper
    than ``untrusted.MAX_DEPTH`` is not decoded (it cannot crash the reader),
    text longer than ``MAX_ANSWER_CHARS`` is not searched, and lone
    surrogates in what is found become U+FFFD.
    """
    found: list[dict[str, Any]] = []
    if len(text) > MAX_ANSWER_CHARS:
        return found
    position = text.find("{")
    while position != -1:
        try:
            value, end = raw_decode(_DECODER, text, position)
        except UntrustedJSON:
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict):
            found.append(clean_value(value))
        position = text.find("{", end)
    return found


def parse_answer(text: str | None, *, max_rationale: int = MAX_RATIONALE) -> Answer | Invalid:
    """Read a model's raw answer by the checks of the module notes (D-ASK-3).

    Parameters
    ----------
    text
        The raw answer, exactly as the model wrote it.
    max_rationale
        The rationale's length limit in characters (the preset's).

    Examples
    --------
    >>> parse_answer('Sure! {"direction": "up", "rationale": "Higher lows."}').direction
    'up'
    >>> parse_answer('{"direction": "Up"}').reason.value
    'bad_direction'
    """
    if text is not None and len(text) > MAX_ANSWER_CHARS:
        detail = f"the answer is longer than {MAX_ANSWER_CHARS} characters"
        return Invalid(reason=InvalidReason.NO_JSON_OBJECT, detail=detail)
    objects = extract_objects(text or "")
    if not objects:
        return Invalid(reason=InvalidReason.NO_JSON_OBJECT, detail="no JSON object in the answer")
    with_direction = [o for o in objects if "direction" in o]
    if not with_direction:
        return Invalid(reason=InvalidReason.NO_DIRECTION, detail="no 'direction' key")
    values = {json.dumps(o["direction"], sort_keys=True) for o in with_direction}
    if len(values) > 1:
        return Invalid(
            reason=InvalidReason.CONFLICTING_OBJECTS,
            detail=f"objects disagree: {', '.join(sorted(values))}",
        )
    chosen = with_direction[0]
    direction = chosen["direction"]
    if direction == "up" and isinstance(direction, str):
        picked: Literal["up", "down"] = "up"
    elif direction == "down" and isinstance(direction, str):
        picked = "down"
    else:
        shown = json.dumps(direction)[:40]
        return Invalid(reason=InvalidReason.BAD_DIRECTION, detail=f"direction {shown}")
    raw = chosen.get("rationale")
    rationale = strip_invisible(raw) if isinstance(raw, str) else ""
    return Answer(
        direction=picked,
        rationale=rationale[:max_rationale],
        rationale_truncated=len(rationale) > max_rationale,
    )
