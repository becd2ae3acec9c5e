"""Methodology pages built from each format's preset: change a preset, the page changes.

Each setting is shown with its value and the description its preset's
docstring gives it; rule identifiers are internal and are taken out of the
text. Reason codes and skip classes come from the formats' own enumerations
(each format's site part names them), and the limits list from
``tradeleague.disclosure``.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final

from tradeleague.disclosure import BOARD_CHANGES, LIMITS
from tradeleague.money import micros_to_str
from tradeleague.web.formatting import money

__all__ = ["Methodology", "Setting", "methodology"]

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
    board_changes: tuple[tuple[str, str], ...] = BOARD_CHANGES


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
        value = money(micros_to_str(raw)) if f.name in _MONEY else _value(raw)
        out.append(Setting(f.name, value, described.get(f.name, "")))
    return tuple(out)


def _codes(groups: Mapping[str, type[enum.Enum]]) -> dict[str, tuple[str, ...]]:
    return {title: tuple(str(m.value) for m in kind) for title, kind in groups.items()}


def methodology(
    key: str,
    title: str,
    preset: Any,
    groups: Mapping[str, type[enum.Enum]],
    notes: Sequence[str] = (),
) -> Methodology:
    """Return format ``key``'s methodology built from its preset.

    Parameters
    ----------
    key, title
        The format's key and title.
    preset
        The preset dataclass the format runs with: every field is a setting,
        described by the class's numpy ``Attributes`` section.
    groups
        The reason-code enumerations to list, under their headings, in order.
    notes
        The decisions the seed leaves open, as the format states them.
    """
    limits: Sequence[str] = LIMITS.get(key, ())
    return Methodology(key, title, _settings(preset), _codes(groups), tuple(limits), tuple(notes))
