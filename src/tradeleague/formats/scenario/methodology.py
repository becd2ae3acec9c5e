"""The decisions the seed leaves open, as the scenario benchmark's methodology page states them."""

from __future__ import annotations

from typing import Final

from tradeleague.formats.scenario.null import CLOUD_AGENTS, EXPOSURE_BPS, FLIPS
from tradeleague.stats.alpha import ALPHA_NOTE
from tradeleague.stats.verdicts import VERDICT_NOTE

__all__ = ["SCENARIO_NOTES"]

SCENARIO_NOTES: Final = (
    "Luckiest of N: beside its runs, a board shows the return the best of N agents with no "
    "skill is expected to reach, N the board's published runs, averaged over as many whole "
    f"boards of N as a cloud of at least {CLOUD_AGENTS:,} such agents holds, and that cloud "
    "drawn as a chart with each run marked in it. The agents trade the scenario itself: its "
    "bars, its slippage, its leverage cap and its forced liquidation, each order filled whole "
    "at the next open or rejected exactly as a run's orders are.",
    "The agent with no skill is a coin flipper. It holds a symbol or not by a coin; where the "
    "scenario allows shorts a second coin says long or short. It flips every coin before the "
    f"first step and then each one again with a chance that makes about {FLIPS} flips a "
    "symbol over the run (every step on a short run), keeping the coin otherwise. At each "
    f"bar it splits {EXPOSURE_BPS / 100:g}% of its equity, valued at that bar's closes, "
    "equally among the symbols it holds, and keeps the rest in cash for the move to the next "
    "open. It never borrows beyond its equity, whatever the cap: a run that takes leverage "
    "takes more risk than these agents do, and its return should be read with that in mind.",
    "Each agent's coins come from a generator seeded by the scenario and the agent's number, "
    "so a board's line and cloud are the same on every read, and the line's N agents are the "
    "first N of the cloud.",
    "Who is ranked: the seed ranks the published runs of a scenario by the metric the reader "
    "picks. We rank only the runs that took at least one step; a run that took none has no "
    'result, and is listed after the ranked runs, unranked, with the reason "took no step".',
    VERDICT_NOTE,
    ALPHA_NOTE,
)
"""The open decisions behind the scenario board's luckiest-of-N line and cloud."""
