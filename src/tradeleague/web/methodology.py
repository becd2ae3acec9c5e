"""Methodology pages built from each format's preset: change a preset, the page changes.

Each setting is shown with its value and the description its preset's
docstring gives it; rule identifiers are internal and are taken out of the
text. Reason codes and skip classes come from the formats' own enumerations,
and the limits list from ``tradeleague.disclosure``.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final

from tradeleague.disclosure import LIMITS
from tradeleague.formats.direction.answer import InvalidReason
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.season import SeasonEnd
from tradeleague.formats.direction.skips import SkipReason
from tradeleague.formats.direction.visitors import Refusal
from tradeleague.formats.scenario import ServicePreset
from tradeleague.formats.scenario.methodology import SCENARIO_NOTES
from tradeleague.formats.scenario.run import RunStatus
from tradeleague.formats.thesis.answer import Reason as ThesisReason
from tradeleague.formats.thesis.methodology import THESIS_NOTES
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.weights import WeightsPreset
from tradeleague.formats.weights.answer import NoDecisionCode
from tradeleague.formats.weights.market_status import ClosedReason, HaltReason
from tradeleague.formats.weights.price_checks import PriceInvalid
from tradeleague.formats.weights.rounds import SkipCode
from tradeleague.formats.weights.scoring import EntryKind, UnrankedReason
from tradeleague.money import micros_to_str

__all__ = ["FORMATS", "Methodology", "Setting", "methodology"]

FORMATS: Final = ("weights", "direction", "scenario", "thesis")
"""The formats with a methodology page."""

_RULE_ID: Final = re.compile(r"\b[A-Z]{1,5}(?:-[A-Z0-9]{1,6})*-\d+(?:\.\.\d+)?\b")
_EMPTY_PARENS: Final = re.compile(r"\(\s*[,;:]?\s*\)")
_OPEN_PUNCT: Final = re.compile(r"\(\s*[,;:]\s*")


@dataclass(frozen=True, slots=True)
class Setting:
    """One preset field: its name, its value as text and what it means."""

    name: str
    value: str
    description: str


@dataclass(frozen=True, slots=True)
class Methodology:
    """A format's methodology: settings, versions, reason codes and limits."""

    format: str
    title: str
    settings: tuple[Setting, ...]
    codes: Mapping[str, tuple[str, ...]]
    limits: tuple[str, ...]
    notes: tuple[str, ...] = ()


def _public(text: str) -> str:
    """Return ``text`` without rule identifiers (internal) and the punctuation they leave."""
    out = _RULE_ID.sub("", text)
    out = _OPEN_PUNCT.sub("(", out)
    out = _EMPTY_PARENS.sub("", out)
    out = out.replace("``", "").replace("`", "")
    return re.sub(r"\s+", " ", out).replace(" .", ".").replace(" ,", ",").strip()


def _described(doc: str) -> dict[str, str]:
    """Return the numpy ``Attributes`` section of ``doc`` as name -> description."""
    lines = doc.splitlines()
    out: dict[str, str] = {}
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Attributes") + 2
    except StopIteration:
        return out
    names: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent <= 4:
            names = [n.strip() for n in line.strip().split(",")]
            for n in names:
                out[n] = ""
        else:
            for n in names:
                out[n] = (out[n] + " " + line.strip()).strip()
    return {k: _public(v) for k, v in out.items()}


def _value(value: Any) -> str:
    if isinstance(value, timedelta):
        seconds = int(value.total_seconds())
        if seconds % 86_400 == 0:
            return f"{seconds // 86_400} days"
        if seconds % 3_600 == 0:
            return f"{seconds // 3_600} hours"
        if seconds % 60 == 0:
            return f"{seconds // 60} minutes"
        return f"{seconds} seconds"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        inner = ", ".join(
            f"{f.name}={_value(getattr(value, f.name))}" for f in dataclasses.fields(value)
        )
        return inner
    if isinstance(value, (tuple, list, frozenset, set)):
        return ", ".join(_value(v) for v in value)
    return str(value)


_MONEY: Final = frozenset({"start_cash", "stake", "start_balance", "season_floor"})
"""Preset fields held in micro-dollars, shown as dollars."""


def _settings(preset: Any) -> tuple[Setting, ...]:
    described = _described(type(preset).__doc__ or "")
    out = []
    for f in dataclasses.fields(preset):
        raw = getattr(preset, f.name)
        value = f"{micros_to_str(raw)} USD" if f.name in _MONEY else _value(raw)
        out.append(Setting(f.name, value, described.get(f.name, "")))
    return tuple(out)


def _codes(groups: Mapping[str, type[enum.Enum]]) -> dict[str, tuple[str, ...]]:
    return {title: tuple(str(m.value) for m in kind) for title, kind in groups.items()}


def methodology(
    name: str,
    *,
    weights: WeightsPreset | None = None,
    direction: DirectionPreset | None = None,
    scenario: ServicePreset | None = None,
    thesis: ThesisPreset | None = None,
) -> Methodology:
    """Return the methodology of format ``name`` built from its preset.

    Raises
    ------
    KeyError
        If ``name`` is not one of `FORMATS`.
    """
    groups: dict[str, type[enum.Enum]]
    preset: Any
    if name == "weights":
        preset, title = weights or WeightsPreset(), "Weights league"
        groups = {
            "Entries": EntryKind,
            "No-decision reasons (validation, in order)": NoDecisionCode,
            "Skips": SkipCode,
            "Unranked reasons": UnrankedReason,
            "Invalid prices": PriceInvalid,
            "Halts": HaltReason,
            "Market closed": ClosedReason,
        }
    elif name == "direction":
        preset, title = direction or DirectionPreset(), "Direction arena"
        groups = {
            "Skip classes": SkipReason,
            "Invalid answers": InvalidReason,
            "Season ends": SeasonEnd,
            "Visitors' calls refused": Refusal,
        }
    elif name == "scenario":
        preset, title = scenario or ServicePreset(), "Scenario benchmark"
        groups = {"Run states": RunStatus}
    elif name == "thesis":
        preset, title = thesis or ThesisPreset(), "Thesis league"
        groups = {"Rejection reasons (answers and decisions)": ThesisReason}
    else:
        raise KeyError(name)
    limits: Sequence[str] = LIMITS.get(name, ())
    notes = {"thesis": THESIS_NOTES, "scenario": SCENARIO_NOTES}.get(name, ())
    return Methodology(name, title, _settings(preset), _codes(groups), tuple(limits), notes)
