"""The check before a hosted weights season: its first round, asked once from the league file.

`check_config` builds the season's agents and plays its first round in memory
over the file's frozen bars (``market``) with `replay.check_first_round`, as
``replay weights`` does before round one. A season that starts after the bars
end is checked at the bars' last trading day: the prompt has the same shape.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from tradeleague.calls import CallParams
from tradeleague.feeds import FrozenBarsSource
from tradeleague.formats.weights import WeightsPreset
from tradeleague.league.check import AgentCheck, calls_models
from tradeleague.league.weights.agents import build_agents
from tradeleague.league.weights.config import WeightsConfig
from tradeleague.league.weights.replay import RosterEntry, check_first_round, replay_hours
from tradeleague.league.weights.round import RoundConfig
from tradeleague.market import load_dataset

__all__ = ["check_config"]


def _days(source: FrozenBarsSource, config: WeightsConfig) -> tuple[date, date]:
    """Return the season's days, or the bars' last day when the season has no bars."""
    end = config.end or config.start + timedelta(days=28)
    if replay_hours(source, config.start, end, WeightsPreset()):
        return config.start, end
    dataset = source.dataset
    last = max(
        datetime.fromtimestamp(int(dataset[s].times[-1]), UTC).date() for s in dataset.symbols
    )
    return last, last + timedelta(days=1)


async def check_config(config: WeightsConfig) -> list[AgentCheck] | None:
    """Return each model agent's check of ``config``'s first round; ``None`` without bars."""
    specs = [f"{a.name}={a.spec}" for a in config.agents]
    if not calls_models(specs):
        return []
    if config.market is None:
        return None
    source = FrozenBarsSource(load_dataset(config.market, symbols=list(config.symbols) or None))
    start, end = _days(source, config)
    roster = [
        RosterEntry(name=a.name, spec=s, division=a.division)
        for a, s in zip(config.agents, specs, strict=True)
    ]
    _parsed, agents, gateway = build_agents(specs, season=config.season)
    try:
        return await check_first_round(
            source, roster, agents, season_id=config.season, start=start, end=end,
            config=RoundConfig(params=CallParams(max_tokens=400, timeout_s=config.timeout_s)),
        )  # fmt: skip
    finally:
        if gateway is not None:
            await gateway.aclose()
