"""Seasons' per-agent results, as each format gives them, for rating models across seasons.

``tradeleague rating``, ``sweep`` and the site's ratings pages pool several
seasons of a format (`tradeleague.stats.rating`). They never read a format's
report themselves: the format's ``results`` part (`ResultsPart`) turns one of
its REPORT.json payloads into a `SeasonResults` (each agent's return, cash's
and the benchmark's over the same period), and lists the seasons a store
holds. A format implements the part structurally in its own package
(``league/<format>/results.py``); it may import this module, which imports no
format.

An agent is rated as its model: the model id of its spec
(``openai:gpt-4o-mini@openrouter`` is ``gpt-4o-mini``, ``local:house`` is
``house``), else the model id its report names, else its name (baselines,
scripted agents).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from tradeleague.errors import ConfigError
from tradeleague.stats.rating import Interval, Rating, SeasonResult

if TYPE_CHECKING:
    from tradeleague.store import Store

__all__ = [
    "AgentResult",
    "ReportResults",
    "ResultsPart",
    "SeasonResults",
    "agent_specs",
    "fraction",
    "model_of",
    "rating_payload",
    "report_marks",
    "season_rows",
    "sweep_seasons",
    "sweep_windows",
    "with_models",
]

_MAX_REPORT_BYTES = 64 * 1024 * 1024
"""A cell's REPORT.json larger than this is refused (it is read whole)."""


@dataclass(frozen=True, slots=True)
class AgentResult:
    """One agent's season: its name, its spec when known, its return (a fraction of one).

    ``model`` is the model id a report names without the spec (the arena's), if any;
    ``cutoff`` its training-cutoff status (``None`` for a baseline or an older
    report); ``alpha`` its annualised alpha, a fraction of one (``None`` when none
    was fitted or the format has none).
    """

    name: str
    spec: str | None
    return_: Decimal
    model: str | None = None
    cutoff: str | None = None
    alpha: Decimal | None = None


@dataclass(frozen=True, slots=True)
class SeasonResults:
    """A season's agents, and cash's and the benchmark's return over the same period.

    ``benchmark`` is ``None`` for a format without one (the arena's binary
    calls); ``benchmark_name`` names it (``"SPY"``).
    """

    season: str
    cash: Decimal
    benchmark: Decimal | None
    benchmark_name: str | None
    agents: tuple[AgentResult, ...]
    start: date | None = None
    """The season's first day (a models file's cutoffs are read against it)."""


class ResultsPart(Protocol):
    """A format's part of ratings: its seasons' per-agent results, from a store."""

    def seasons(self, store: Store) -> list[SeasonResults]:
        """Return the results of every season of the format in ``store``, in stream order."""
        ...


@runtime_checkable
class ReportResults(Protocol):
    """A format's results read from one of its REPORT.json payloads (a sweep's cells).

    A format with a ``sweep`` part implements it beside `ResultsPart`.
    """

    def season(self, report: Mapping[str, Any]) -> SeasonResults:
        """Return the results of one REPORT.json payload, as the format's replay writes it.

        Raises
        ------
        ConfigError
            The payload is not a report of this format, in one sentence.
        """
        ...


def fraction(percent: object) -> Decimal:
    """Return a report's percent string (``"-1.25"``) as a fraction of one (``-0.0125``).

    Raises
    ------
    ConfigError
        When ``percent`` is not a finite decimal.
    """
    try:
        value = Decimal(str(percent))
    except InvalidOperation:
        raise ConfigError(f"a report's return {percent!r} is not a decimal number") from None
    if not value.is_finite():
        raise ConfigError(f"a report's return {percent!r} is not a finite number")
    return value / 100


def model_of(name: str, spec: str | None, model: str | None = None) -> str:
    """Return the model an agent is rated as: its spec's model id, else ``model``, else its name."""
    if spec is None:
        return model or name
    from tradeleague.agents.spec import parse_agent_spec

    try:
        parsed = parse_agent_spec(spec)
    except ConfigError:
        return name
    if parsed.kind in ("openai", "local"):
        return parsed.target
    return name


def season_rows(key: str, results: SeasonResults) -> list[SeasonResult]:
    """Return ``results`` as the rating's input, each agent rated as its model (`model_of`)."""
    return [
        SeasonResult(
            season=key,
            model=model_of(a.name, a.spec, a.model),
            return_=float(a.return_),
            cash=float(results.cash),
            benchmark=None if results.benchmark is None else float(results.benchmark),
            cutoff=a.cutoff,
            alpha=None if a.alpha is None else float(a.alpha),
        )
        for a in results.agents
    ]


def with_models(results: SeasonResults, models: Mapping[str, str] | None) -> SeasonResults:
    """Return ``results`` with a models file's cutoffs for agents whose record gave none.

    An agent marked ``cutoff_unknown`` takes the models file's cutoff for its
    model (`model_of`), else for its name, read against the season's first day;
    a recorded cutoff is never overridden.
    """
    if not models or results.start is None:
        return results
    from tradeleague.agents.cutoff import CutoffStatus, cutoff_end

    agents = []
    for a in results.agents:
        found = models.get(model_of(a.name, a.spec, a.model), models.get(a.name))
        if a.cutoff == CutoffStatus.UNKNOWN.value and found is not None:
            before = results.start <= cutoff_end(found)
            a = replace(a, cutoff=(CutoffStatus.BEFORE if before else CutoffStatus.AFTER).value)
        agents.append(a)
    return replace(results, agents=tuple(agents))


def report_marks(agent: Mapping[str, Any]) -> tuple[str | None, Decimal | None]:
    """Return a report agent's training-cutoff status and annualised alpha (a fraction).

    Either is ``None`` where the report has none (a baseline, too few steps, an
    older report).
    """
    mark = agent.get("training_cutoff")
    status = str(mark["status"]) if isinstance(mark, dict) and "status" in mark else None
    fitted = agent.get("alpha")
    alpha = None
    if isinstance(fitted, dict) and fitted.get("alpha_annualised") is not None:
        alpha = fraction(fitted["alpha_annualised"])
    return status, alpha


def agent_specs(options: Sequence[str]) -> dict[str, str]:
    """Return a cell's ``--agent`` options by agent name (the sweep's report).

    Each value is the option as given (``NAME=SPEC`` or a bare ``SPEC``, which
    `model_of` reads alike); one that does not parse is left out.
    """
    from tradeleague.agents.spec import parse_agent_spec

    specs: dict[str, str] = {}
    for flag, value in itertools.pairwise(options):
        if flag == "--agent":
            try:
                specs[parse_agent_spec(value).name] = value.strip()
            except ConfigError:
                continue
    return specs


def _read_json(path: Path) -> Any:
    try:
        if path.stat().st_size > _MAX_REPORT_BYTES:
            raise ConfigError(f"{path} is larger than {_MAX_REPORT_BYTES // 2**20} MiB")
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError:
        raise ConfigError(f"{path} is not JSON: is it a REPORT.json?") from None


def sweep_seasons(
    out: Path, parts: Mapping[str, ResultsPart], models: Mapping[str, str] | None = None
) -> dict[str, list[SeasonResult]]:
    """Return every ok cell of the sweep in ``out`` as rating rows, by format, in grid order.

    A season is the sweep's season: its cells of every roster and seed share its
    market and period, so they are one season to resample, each model's figure
    in it the mean over its runs (`tradeleague.stats.rating`). An agent's model
    comes from the cell's ``--agent`` spec. Cells of a format not in ``parts``, or whose
    part reads no REPORT.json (`ReportResults`), are left out.

    Raises
    ------
    ConfigError
        When ``out`` holds no sweep's REPORT.json, or a cell's report is unreadable.
    """
    merged = out / "REPORT.json"
    if not merged.is_file():
        raise ConfigError(f"{out} holds no REPORT.json: give the --out folder of a finished sweep")
    report = _read_json(merged)
    cells = report.get("cells") if isinstance(report, dict) else None
    if not isinstance(cells, list):
        raise ConfigError(f"{merged} is not a sweep's REPORT.json (it has no cells)")
    rows: dict[str, list[SeasonResult]] = {}
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("status") != "ok":
            continue
        part = parts.get(str(cell.get("format")))
        if not isinstance(part, ReportResults):
            continue
        where = (out / str(cell.get("report"))).resolve()
        if not where.is_relative_to(out.resolve()):
            raise ConfigError(f"{merged} names a cell report outside {out}: refused")
        try:
            season = part.season(_read_json(where))
        except (KeyError, TypeError, AttributeError, IndexError):
            raise ConfigError(
                f"{where} is not a {cell.get('format')} REPORT.json this version reads: "
                "replay the cell again"
            ) from None
        given = cell.get("agents")
        specs: dict[str, str] = given if isinstance(given, dict) else {}
        season = replace(
            season,
            agents=tuple(replace(a, spec=specs.get(a.name, a.spec)) for a in season.agents),
        )
        season = with_models(season, models)
        rows.setdefault(str(cell["format"]), []).extend(season_rows(str(cell["season"]), season))
    return rows


def sweep_windows(out: Path) -> dict[str, list[str]]:
    """Return the windows the sweep at ``out`` named: each label's seasons, in the file's order.

    Raises
    ------
    ConfigError
        When ``out`` holds no sweep's REPORT.json, or its sweep named no window.
    """
    merged = out / "REPORT.json"
    if not merged.is_file():
        raise ConfigError(f"{out} holds no REPORT.json: give the --out folder of a finished sweep")
    report = _read_json(merged)
    windows = report.get("windows") if isinstance(report, dict) else None
    if not isinstance(windows, dict) or not windows:
        raise ConfigError(
            f"the sweep in {out} names no windows: add a [windows] table to its sweep file, "
            'e.g. in = ["season-a"] and out = ["season-b"], and run it again'
        )
    return {str(label): [str(s) for s in seasons] for label, seasons in windows.items()}


def _interval(interval: Interval | None) -> dict[str, Any] | None:
    if interval is None:
        return None
    return {"seasons": interval.seasons, "mean": interval.mean, "low": interval.low,
            "high": interval.high}  # fmt: skip


def rating_payload(rating: Rating) -> dict[str, Any]:
    """Return ``rating`` as JSON: exact values (fractions of one), models best first, pairs."""
    return {
        "method": "mean excess return over seasons; 95% bootstrap interval resampling whole "
        "seasons; pairs: sign-flip randomisation test over shared seasons (else unpaired), "
        "Holm-corrected at 5%",
        "seed": rating.seed,
        "resamples": rating.resamples,
        "models": [
            {
                "model": m.model,
                "seasons": m.seasons,
                "runs": m.runs,
                "vs_cash": _interval(m.vs_cash),
                "vs_benchmark": _interval(m.vs_benchmark),
                "cutoff": m.cutoff,
            }
            for m in rating.models
        ],
        "pairs": [
            {
                "a": p.a,
                "b": p.b,
                "paired": p.paired,
                "shared_seasons": p.shared,
                "difference": p.difference,
                "p_value": p.p_value,
                "p_holm": p.p_holm,
                "verdict": p.verdict,
            }
            for p in rating.pairs
        ],
    }
