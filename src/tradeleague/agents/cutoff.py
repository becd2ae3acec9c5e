"""Models' training cutoffs: whether a season's period lies inside what a model may have read.

A replay asks a language model about days it may have read about in training.
Every model agent's result says which case it is in, from the agent's recorded
spec and the season's first day:

- ``before_cutoff``: the season starts on or before the end of the model's
  training window, so the period overlaps what it may have read: its results
  may reflect memory of the outcome, not reasoning;
- ``after_cutoff``: the model's training window ended before the season's
  first day: the period is out of sample for it;
- ``cutoff_unknown``: no cutoff was given for the model.

Baselines and other rule-based agents are not models: they have none of the
three (``None``, shown as "not a model").

Where a cutoff comes from (its ``source``):

- ``spec``: the agent spec's own option, ``,cutoff=2024-06``;
- ``models``: the operator's models file (``--models FILE`` on the replay
  commands and ``rating``, or ``models = "FILE"`` in the league file)::

      [models."openai/gpt-4o-mini"]
      cutoff = "2023-10"

  a key names a model id (what follows ``openai:`` before ``@``, or the
  ``local:`` name) or an agent's name;
- ``house``: the bundled house model (``local:house``), whose cutoff this
  module states with the reason (`HOUSE_CUTOFF_NOTE`).

A cutoff is ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` and means the *last* day of
the training window: ``2024-06`` is 30 June 2024. Before the season starts,
`resolve_cutoffs` writes the cutoff a models file or the house model gives
into the agent's spec (``,cutoff=...,cutoff_source=...``), and the spec is
what the season's events record: a replay or ``verify`` of the season reads
the same cutoff back, whatever the models file says later.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from tradeleague.errors import ConfigError
from tradeleague.stats.cutoff import CUTOFF_SOURCES, CutoffStatus, cutoff_end, cutoff_mark

__all__ = [
    "CUTOFF_NOTE",
    "CUTOFF_SOURCES",
    "HOUSE_CUTOFF",
    "HOUSE_CUTOFF_NOTE",
    "MODELS_HELP",
    "CutoffStatus",
    "cutoff_end",
    "cutoff_mark",
    "cutoff_words",
    "read_models",
    "resolve_cutoffs",
    "training_cutoff",
]


HOUSE_CUTOFF = "2024-11"
"""The house model's cutoff: SmolLM2's release month (see `HOUSE_CUTOFF_NOTE`)."""

HOUSE_CUTOFF_NOTE = (
    "The house model (SmolLM2-135M-Instruct) states no knowledge cutoff; it was released in "
    "November 2024, so its training window ends no later than that month: 2024-11 is used."
)
"""Why the house model's cutoff is what it is (the methodology pages show it)."""

CUTOFF_NOTE = (
    "Training cutoffs: a language model may have read about the very days a replay asks it "
    "about, so a replay over its training window can reward memory, not reasoning. Each model "
    "agent is marked before_cutoff (the season starts on or before the end of the model's "
    "training window: results may reflect memory), after_cutoff (the window ended before the "
    "season's first day, so a live season is after_cutoff only for a model whose cutoff "
    "precedes its start) or cutoff_unknown (no cutoff was given). Baselines are rules, not "
    "models: they have none. A cutoff comes from the agent spec (,cutoff=2024-06), from the "
    "operator's models file, or, for the house model, from its release; it is recorded in the "
    "season's events, so a replay shows the same mark. " + HOUSE_CUTOFF_NOTE
)
"""Our decision on training cutoffs, as the methodology pages state it."""

MODELS_HELP = (
    'A TOML file of models\' training cutoffs, e.g. [models."openai/gpt-4o-mini"] '
    'cutoff = "2023-10" (a key is a model id or an agent name). An agent without '
    ",cutoff= in its spec takes its cutoff from here; every result then says whether "
    "the period lies before or after it. Default: none (cutoffs come from the specs only)."
)
"""The help text of ``--models FILE``."""

_MAX_MODELS_BYTES = 1024 * 1024
_MAX_MODELS = 10_000
_WORDS = {
    CutoffStatus.BEFORE: "before cutoff",
    CutoffStatus.AFTER: "after cutoff",
    CutoffStatus.UNKNOWN: "cutoff unknown",
}
_TITLES = {
    CutoffStatus.BEFORE: "The period overlaps this model's training window: results may "
    "reflect memory of the outcome, not reasoning.",
    CutoffStatus.AFTER: "The model's training window ended before this period began.",
    CutoffStatus.UNKNOWN: "No training cutoff was given for this model: the period may "
    "overlap what it read.",
}


def training_cutoff(spec: str | None, start: date) -> dict[str, Any] | None:
    """Return a model agent's cutoff mark for a season starting on ``start``, from its spec.

    ``None`` for a baseline (not a model) or a spec that does not parse; else
    ``status`` (a `CutoffStatus` value), ``cutoff`` (as recorded, or ``None``)
    and ``source`` (one of `CUTOFF_SOURCES`, or ``None``).
    """
    if spec is None:
        return None
    from tradeleague.agents.spec import parse_agent_spec

    try:
        parsed = parse_agent_spec(spec)
    except ConfigError:
        return None
    if parsed.kind == "baseline":
        return None
    return cutoff_mark(parsed.cutoff, parsed.cutoff_source, start)


def cutoff_words(mark: Mapping[str, Any] | None) -> tuple[str, str]:
    """Return a cutoff mark as a person reads it, and the sentence a tooltip shows.

    >>> cutoff_words({"status": "before_cutoff", "cutoff": "2024-06", "source": "spec"})[0]
    'before cutoff (2024-06)'
    >>> cutoff_words(None)
    ('not a model', 'A rule-based baseline has no training window.')
    """
    if not mark:
        return "not a model", "A rule-based baseline has no training window."
    status = CutoffStatus(str(mark.get("status")))
    cutoff = mark.get("cutoff")
    words = _WORDS[status] + (f" ({cutoff})" if cutoff else "")
    title = _TITLES[status]
    if cutoff:
        title += f" Cutoff {cutoff}, from the {_SOURCE_WORDS.get(str(mark.get('source')), 'spec')}."
    return words, title


_SOURCE_WORDS = {"spec": "agent spec", "models": "models file", "house": "house model's release"}


def read_models(path: Path) -> dict[str, str]:
    """Read a models file: each ``[models."ID"]`` table's ``cutoff``, by model id or agent name.

    Raises
    ------
    ConfigError
        For an unreadable, oversized or malformed file, an unknown key or a bad cutoff.
    """
    try:
        if path.stat().st_size > _MAX_MODELS_BYTES:
            raise ConfigError(f"the models file {path} is larger than 1 MiB")
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the models file {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"the models file {path} is not valid TOML: {exc}") from None
    extra = set(data) - {"models"}
    models = data.get("models", {})
    if extra or not isinstance(models, dict) or len(models) > _MAX_MODELS:
        raise ConfigError(
            f'the models file {path} must hold only [models."ID"] tables, e.g. '
            '[models."openai/gpt-4o-mini"] cutoff = "2023-10"'
        )
    cutoffs: dict[str, str] = {}
    for key, table in models.items():
        if not isinstance(table, dict) or set(table) - {"cutoff"}:
            raise ConfigError(
                f'the models file {path}: [models."{key}"] holds only cutoff = "YYYY-MM"'
            )
        value = table.get("cutoff")
        if value is None:
            continue
        if not isinstance(value, str):
            raise ConfigError(f'the models file {path}: [models."{key}"] cutoff must be a string')
        cutoff_end(value)
        cutoffs[str(key)] = value.strip()
    return cutoffs


def resolve_cutoffs(specs: Sequence[str], models: Mapping[str, str] | None = None) -> list[str]:
    """Return ``specs`` with the cutoff each model agent gets written into its spec.

    A spec with its own ``cutoff=`` is left as it is. Otherwise a models file's
    entry for its model id (else its name) adds ``,cutoff=...,cutoff_source=models``;
    else the bundled house model (``local:house`` while ``TRADELEAGUE_HOUSE_MODEL``
    is unset) adds ``HOUSE_CUTOFF`` with ``cutoff_source=house``. Baselines and
    specs that do not parse are left as they are (the roster's own check reports
    the latter).
    """
    from tradeleague.agents.spec import HOUSE_MODEL_NAMES, parse_agent_spec

    out: list[str] = []
    for text in specs:
        try:
            parsed = parse_agent_spec(text)
        except ConfigError:
            out.append(text)
            continue
        found: tuple[str, str] | None = None
        if parsed.kind != "baseline" and parsed.cutoff is None:
            given = models or {}
            for key in (parsed.target, parsed.name):
                if key in given:
                    found = (given[key], "models")
                    break
            if (
                found is None
                and parsed.kind == "local"
                and parsed.target in HOUSE_MODEL_NAMES
                and not os.environ.get("TRADELEAGUE_HOUSE_MODEL")
            ):
                found = (HOUSE_CUTOFF, "house")
        if found is None:
            out.append(text)
        else:
            out.append(f"{text.strip()},cutoff={found[0]},cutoff_source={found[1]}")
    return out
