"""A board's race and its story: every account over the season, and one sentence on the lead.

Shared by every format's board (the ``race`` and ``story`` keys of its JSON,
and the site's home page): a format's read model hands over its agents'
account paths (`Runner`) and its leader with the luck line it is judged by
(`Lead`); nothing here knows a format. The race keeps at most `RACE_POINTS`
points a line (evenly spaced, the last always kept) as exact decimal strings
of dollars; the story says who leads, by what figure, what the best of as
many agents with no skill would be expected to reach, and whether the lead is
within or beyond luck (beyond when its p-value is below `LUCK_LEVEL`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from pydantic import BaseModel, Field

from tradeleague.money import micros_to_str

__all__ = [
    "LUCK_LEVEL",
    "RACE_POINTS",
    "STORY_DESCRIPTION",
    "TOP",
    "Lead",
    "RaceLineOut",
    "RaceOut",
    "Runner",
    "VersusOut",
    "race_payload",
    "story_text",
    "top_rows",
    "versus_payload",
]

_T = TypeVar("_T")

TOP: Final = 5
"""How many of a board's leaders the home page lists."""

RACE_POINTS: Final = 120
"""The most points a race line keeps (the chart needs no more)."""

LUCK_LEVEL: Final = 0.05
"""A lead whose p-value is below this is said to be beyond luck."""


@dataclass(frozen=True, slots=True)
class Runner:
    """One agent in a race: its name, its account values (micro-dollars) oldest first."""

    name: str
    values: Sequence[int]
    baseline: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Lead:
    """A board's leader and the luck line it is judged by.

    Attributes
    ----------
    name
        The first-ranked agent.
    figure
        Its figure as a reader reads it (``"+2.90%"``, ``"ROI +1.20%"``).
    agents
        How many agents the board compares (the N of the luck line).
    expected
        What the best of N agents with no skill would be expected to reach, as
        a reader reads it (``"+1.70%"``); ``None`` while there is no line yet.
    p_value
        How often luck alone leads by this much (``None`` with no line).
    """

    name: str
    figure: str
    agents: int
    expected: str | None
    p_value: float | None


class RaceLineOut(BaseModel):
    """One agent's line in a board's ``race``."""

    name: str = Field(description="The agent as the board names it.")
    baseline: bool = Field(description="True for a rule-based baseline (drawn lighter).")
    values: list[str] = Field(
        description=f"Account value in USD (exact decimal strings), oldest first, at most "
        f"{RACE_POINTS} evenly spaced points, the first the starting value."
    )


class RaceOut(BaseModel):
    """A board's ``race``: every agent's account value over the season (every format's board)."""

    unit: str = Field(description="The values' unit: USD.")
    start: str = Field(description="Every account's starting value (decimal string).")
    leader: str | None = Field(description="The first-ranked agent; null while none is ranked.")
    lines: list[RaceLineOut] = Field(description="One line per agent, in board order.")


STORY_DESCRIPTION: Final = (
    "One sentence on the board: who leads, by what figure, what the best of as many agents "
    "with no skill would be expected to reach, and whether the lead is within or beyond "
    f"luck (beyond when its p-value is below {LUCK_LEVEL})."
)
"""What a board's ``story`` key holds, as the response models say it."""

RACE_EXAMPLE: Final[dict[str, Any]] = {
    "unit": "USD",
    "start": "100000",
    "leader": None,
    "lines": [],
}
"""A board's ``race`` as the response models' examples show it: no agent ranked yet."""


class StoriedOut(BaseModel):
    """A board answer's ``race`` and ``story``: mixed into each format's board model."""

    race: RaceOut = Field(
        description="Every agent's account value over the season, the leader named."
    )
    story: str = Field(description=STORY_DESCRIPTION)


def _thinned(values: Sequence[_T]) -> list[_T]:
    if len(values) <= RACE_POINTS:
        return list(values)
    step = (len(values) - 1) / (RACE_POINTS - 1)
    return [values[round(i * step)] for i in range(RACE_POINTS)]


def race_payload(runners: Iterable[Runner], start: int, leader: str | None) -> dict[str, Any]:
    """Return the race as JSON: the starting value, the leader, one line per agent.

    ``start`` is every account's starting value in micro-dollars; each line's
    ``values`` are dollars as exact decimal strings, thinned to `RACE_POINTS`.
    """
    return {
        "unit": "USD",
        "start": micros_to_str(start),
        "leader": leader,
        "lines": [
            {
                "name": r.name,
                "baseline": r.baseline,
                "values": [micros_to_str(v) for v in _thinned(r.values)],
            }
            for r in runners
        ],
    }


class VersusPointOut(BaseModel):
    """One point of an agent's ``versus``: its account and the benchmark's, at one step."""

    at: str = Field(description="The step: a day, a cycle or a round (ISO time or id).")
    agent: str = Field(description="The agent's account value in USD (exact decimal string).")
    benchmark: str = Field(
        description="The benchmark's value in USD from the same start (exact decimal string)."
    )


class VersusOut(BaseModel):
    """An agent page's ``versus``: its account value against its benchmark's, step by step."""

    unit: str = Field(description="The values' unit: USD.")
    start: str = Field(description="Both accounts' starting value (decimal string).")
    step: str = Field(description="What each point is: day, cycle or round.")
    agent: str = Field(description="The agent as the board names it.")
    benchmark: str = Field(description="What the agent is measured against, in words.")
    points: list[VersusPointOut] = Field(
        description=f"Oldest first, at most {RACE_POINTS} evenly spaced points, the last kept."
    )


def versus_payload(
    agent: str, benchmark: str, step: str, start: int, points: Sequence[tuple[str, int, int]]
) -> dict[str, Any]:
    """Return an agent's account against its benchmark as JSON (``versus``; `VersusOut`).

    ``points`` are (step, agent's value, benchmark's value) in micro-dollars,
    oldest first; ``start`` is both accounts' starting value. The points are
    thinned to `RACE_POINTS` as a race's lines are.
    """
    return {
        "unit": "USD",
        "start": micros_to_str(start),
        "step": step,
        "agent": agent,
        "benchmark": benchmark,
        "points": [
            {"at": at, "agent": micros_to_str(a), "benchmark": micros_to_str(b)}
            for at, a, b in _thinned(points)
        ],
    }


def story_text(lead: Lead | None, nothing: str = "No agent is ranked yet.") -> str:
    """Return the board's one sentence: who leads, by how much, and whether it could be luck.

    ``nothing`` is said while no agent is ranked.
    """
    if lead is None:
        return nothing
    head = f"{lead.name} leads at {lead.figure}"
    if lead.expected is None or lead.p_value is None:
        return f"{head}; too little has been played yet to tell a lead from luck."
    noun = "agent" if lead.agents == 1 else "agents"
    line = f"{head}; the best of {lead.agents} {noun} with no skill would be expected at "
    if lead.p_value < LUCK_LEVEL:
        verdict = f"this lead is beyond luck ({_p(lead.p_value)})"
    else:
        verdict = f"this lead is within luck ({_p(lead.p_value)})"
    return f"{line}{lead.expected}: {verdict}."


def _p(value: float) -> str:
    """Return the p-value as read: ``p = 0.4``, or ``p < 0.001`` (never ``p = < 0.001``)."""
    return "p < 0.001" if value < 0.001 else "p = " + f"{value:.3f}".rstrip("0").rstrip(".")


Row = Mapping[str, Any]


def top_rows(
    rows: Sequence[Row],
    figure: Callable[[Row], object],
    link: Callable[[Row], str],
    name: Callable[[Row], object] = lambda row: row["name"],
) -> list[dict[str, Any]]:
    """Return a board's first `TOP` rows as the home page lists them: rank, name, figure, link."""
    return [
        {"rank": r["rank"], "name": name(r), "figure": figure(r), "link": link(r)}
        for r in rows[:TOP]
    ]
