"""The answer and its validation, in the published order (W-VAL-1..9, C-6).

``validate_answer`` checks raw answer text in the order of W-VAL-1..6; the
first failure is a "No decision" with its ``NoDecisionCode`` and nothing
changes. Only then does W-VAL-7 apply its two named changes (a weight above
the cap is cut to the cap; a reason over 240 characters is cut to 240). The
system never repairs or guesses (C-6).

Details that are ours (documented in the README): white space around the JSON
object is allowed; a JSON object with a repeated key, or a ``NaN`` or
``Infinity``, is not in the required format (W-VAL-1); a ``targets`` that is
not an object or a ``reason`` that is not a string is not one of the two parts
(W-VAL-2); a weight must be a JSON number, never a string or ``true``
(W-VAL-4); a reason of white space and invisible format characters only
(zero-width spaces) is empty (W-VAL-6); an answer longer than
``MAX_ANSWER_CHARS``, nested deeper than ``untrusted.MAX_DEPTH`` or holding a
lone surrogate escape (text no record can hold) is not in the required format
(W-VAL-1).

``no_decision_for`` maps a gateway outcome to its "No decision" code (W-VAL-8)
and ``counts_toward_pause`` says which of them pause a Pro agent (W-VAL-9).
``render_answer`` turns a baseline's weights into the same answer text, so a
baseline passes through the same validator as a model (C-2).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from tradeleague.calls import Outcome
from tradeleague.formats.weights.preset import WeightsPreset
from tradeleague.untrusted import JSONProblem, UntrustedJSON, has_lone_surrogate, is_blank, loads

__all__ = [
    "MAX_ANSWER_CHARS",
    "Decision",
    "NoDecision",
    "NoDecisionCode",
    "counts_toward_pause",
    "no_decision_for",
    "render_answer",
    "validate_answer",
]

_HUNDRED = Decimal(100)
_BPS_PER_PERCENT = 100
_PARTS = frozenset({"targets", "reason"})
MAX_ANSWER_CHARS = 100_000
"""The longest answer read at all; a longer one is not in the required format (ours)."""


class NoDecisionCode(enum.StrEnum):
    """Why an answer is "No decision": the W-VAL rule that failed, or the provider fault."""

    NOT_IN_FORMAT = "not_in_format"
    """W-VAL-1: not one JSON object, or something before or after it."""
    NOT_TWO_PARTS = "not_two_parts"
    """W-VAL-2: not exactly the targets and the reason."""
    UNKNOWN_SYMBOL = "unknown_symbol"
    """W-VAL-3: a target names no league symbol."""
    BAD_WEIGHT = "bad_weight"
    """W-VAL-4: a weight is not a number from 0 to 100 with at most two decimals."""
    OVER_100 = "weights_over_100"
    """W-VAL-5: the weights add up to more than 100%."""
    EMPTY_REASON = "empty_reason"
    """W-VAL-6: the reason is empty."""
    KEY_REJECTED = "key_rejected"
    """W-VAL-8: the provider rejected the key."""
    MODEL_REJECTED = "model_rejected"
    """W-VAL-8: the provider rejected the model name."""
    PROVIDER_ERROR = "provider_error"
    """W-VAL-8: the provider returned an error (rate limits included)."""
    TIMEOUT = "timeout"
    """W-VAL-8: no answer in time."""
    KEY_UNREADABLE = "key_unreadable"
    """W-VAL-8: the key could not be read."""


_BY_OUTCOME = {
    Outcome.KEY_REJECTED: NoDecisionCode.KEY_REJECTED,
    Outcome.MODEL_NOT_FOUND: NoDecisionCode.MODEL_REJECTED,
    Outcome.RATE_LIMITED: NoDecisionCode.PROVIDER_ERROR,
    Outcome.PROVIDER_ERROR: NoDecisionCode.PROVIDER_ERROR,
    Outcome.TIMEOUT: NoDecisionCode.TIMEOUT,
    Outcome.KEY_UNREADABLE: NoDecisionCode.KEY_UNREADABLE,
}
_PAUSING = frozenset(
    {NoDecisionCode.KEY_REJECTED, NoDecisionCode.MODEL_REJECTED, NoDecisionCode.KEY_UNREADABLE}
)


@dataclass(frozen=True, slots=True)
class NoDecision:
    """A failed check: its code and one sentence saying what failed."""

    code: NoDecisionCode
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """A valid decision after W-VAL-7.

    Attributes
    ----------
    targets
        Symbol -> target weight in basis points, capped; zero targets omitted.
    reason
        The reason, cut to the preset's length.
    capped
        Symbols whose weight was cut to the cap.
    reason_cut
        Whether the reason was cut.
    """

    targets: Mapping[str, int]
    reason: str
    capped: tuple[str, ...] = ()
    reason_cut: bool = False


def no_decision_for(outcome: Outcome) -> NoDecision | None:
    """Return the "No decision" of a provider outcome (W-VAL-8); ``None`` if it answered."""
    code = _BY_OUTCOME.get(outcome)
    return None if code is None else NoDecision(code, f"the model call ended {outcome.value}")


def counts_toward_pause(code: NoDecisionCode | str) -> bool:
    """Return whether a "No decision" counts toward pausing a Pro agent (W-VAL-9)."""
    return code in _PAUSING


class _Duplicate(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _load(text: str) -> dict[str, Any] | NoDecision:
    try:
        data = loads(
            text,
            max_chars=MAX_ANSWER_CHARS,
            object_pairs_hook=_pairs,
            parse_float=Decimal,
            parse_constant=_constant,
        )
    except UntrustedJSON as exc:
        if isinstance(exc.__cause__, _Duplicate):
            return NoDecision(
                NoDecisionCode.NOT_IN_FORMAT, f"the key {exc.__cause__} appears twice"
            )
        if exc.code is JSONProblem.TOO_DEEP:
            return NoDecision(NoDecisionCode.NOT_IN_FORMAT, "the answer nests too deep")
        if exc.code is JSONProblem.TOO_LARGE:
            return NoDecision(NoDecisionCode.NOT_IN_FORMAT, "the answer is too long")
        return NoDecision(NoDecisionCode.NOT_IN_FORMAT, "the answer is not one JSON object alone")
    if not isinstance(data, dict):
        return NoDecision(NoDecisionCode.NOT_IN_FORMAT, "the answer is not a JSON object")
    if has_lone_surrogate(data):  # a \ud800 escape: text no record can hold (ours)
        return NoDecision(NoDecisionCode.NOT_IN_FORMAT, "the answer holds text that is not Unicode")
    return data


def _weight(value: object) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        return None
    try:
        dec = Decimal(value)
    except InvalidOperation:  # pragma: no cover - ints and finite Decimals always convert
        return None
    if not dec.is_finite() or not 0 <= dec <= _HUNDRED:
        return None
    if dec != dec.quantize(Decimal("0.01")):
        return None
    return dec


def validate_answer(
    text: str | None, symbols: AbstractSet[str], preset: WeightsPreset
) -> Decision | NoDecision:
    """Check ``text`` by W-VAL-1..6 in order, then apply W-VAL-7.

    Parameters
    ----------
    text
        The raw answer, exactly as the agent gave it.
    symbols
        The league's symbols.
    preset
        The cap and the reason length.

    Returns
    -------
    Decision or NoDecision
        The decision, or the first failed check.
    """
    if text is None:
        return NoDecision(NoDecisionCode.NOT_IN_FORMAT, "the answer is empty")
    loaded = _load(text)
    if isinstance(loaded, NoDecision):
        return loaded
    if set(loaded) != _PARTS:
        found = ", ".join(sorted(loaded)) or "none"
        return NoDecision(NoDecisionCode.NOT_TWO_PARTS, f"expected targets and reason, got {found}")
    targets, reason = loaded["targets"], loaded["reason"]
    if not isinstance(targets, dict) or not isinstance(reason, str):
        return NoDecision(NoDecisionCode.NOT_TWO_PARTS, "targets must be an object, reason text")
    unknown = sorted(set(targets) - set(symbols))
    if unknown:
        return NoDecision(NoDecisionCode.UNKNOWN_SYMBOL, f"not league symbols: {unknown}")
    weights: dict[str, Decimal] = {}
    for symbol in sorted(targets):
        weight = _weight(targets[symbol])
        if weight is None:
            return NoDecision(NoDecisionCode.BAD_WEIGHT, f"the weight of {symbol} is not valid")
        weights[symbol] = weight
    if sum(weights.values(), Decimal(0)) > _HUNDRED:
        return NoDecision(NoDecisionCode.OVER_100, "the weights add up to more than 100%")
    if is_blank(reason):  # white space and invisible characters only
        return NoDecision(NoDecisionCode.EMPTY_REASON, "the reason is empty")
    bps = {s: int(w * _BPS_PER_PERCENT) for s, w in weights.items() if w}
    capped = tuple(s for s, b in bps.items() if b > preset.max_weight_bps)
    out = {s: min(b, preset.max_weight_bps) for s, b in bps.items()}
    cut = len(reason) > preset.reason_max_chars
    return Decision(
        targets=out,
        reason=reason[: preset.reason_max_chars],
        capped=capped,
        reason_cut=cut,
    )


def render_answer(targets_bps: Mapping[str, int], reason: str) -> str:
    """Return answer text in the required format for weights in basis points.

    Zero weights are left out (a symbol left out has target 0).

    Examples
    --------
    >>> render_answer({"SPY": 2500, "QQQ": 0}, "Half cash.")
    '{"targets":{"SPY":25},"reason":"Half cash."}'
    """
    shown: dict[str, int | float] = {}
    for symbol in sorted(targets_bps):
        bps = targets_bps[symbol]
        if bps:
            whole, part = divmod(bps, _BPS_PER_PERCENT)
            shown[symbol] = whole if not part else float(f"{whole}.{part:02d}")
    return json.dumps({"targets": shown, "reason": reason}, separators=(",", ":"))
