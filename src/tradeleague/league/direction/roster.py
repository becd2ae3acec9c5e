"""A direction roster entry from an agent spec: its board labels and its agent, built one way.

`replay direction` and the host build their arenas' rosters here, so an agent
named the same in the same stream answers the same in both: a seeded baseline
draws from the seed of its stream and name (`agents.seeds.agent_seed`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tradeleague.agents.seeds import agent_seed
from tradeleague.agents.spec import AgentSpec, build_agent
from tradeleague.errors import ConfigError
from tradeleague.formats.direction.baselines import BASELINE_NAMES, direction_baseline
from tradeleague.formats.direction.ledger import Entrant
from tradeleague.formats.direction.preset import FORMAT
from tradeleague.league.direction.arena import Contestant
from tradeleague.llm.gateway import ModelGateway

__all__ = ["SHOWN_BASELINES", "contestant_of", "direction_baselines", "seeded_baselines"]

SHOWN_BASELINES = tuple(sorted(n.replace("_", "-") for n in BASELINE_NAMES))
"""The arena's baselines as the help writes them (one style: ``coin-flip``)."""


def direction_baselines(name: str) -> tuple[Any, Any]:
    """Return ``(decide, render)`` of an arena baseline: up, down, momentum or coin-flip.

    ``coin-flip`` and ``coin_flip`` are the same baseline (seed 0; a roster's own
    baselines draw from `seeded_baselines`).

    Raises
    ------
    ConfigError
        For any other name.
    """
    try:
        return direction_baseline(name.replace("-", "_"), seed=0)
    except ConfigError:
        raise ConfigError(
            f"unknown direction baseline {name!r}; choose one of: {', '.join(SHOWN_BASELINES)}"
        ) from None


def seeded_baselines(stream: str, agent: str, base: int = 0) -> Callable[[str], tuple[Any, Any]]:
    """Return the baseline factory of ``agent``: its coin draws from its own seed.

    The seed derives from the stream, the agent's name and the run's ``base``
    seed, so no two coin flippers agree by accident, and another base seed
    draws another season of coins (a sweep's seeds).
    """
    seed = agent_seed(stream, agent, base)

    def make(name: str) -> tuple[Any, Any]:
        try:
            return direction_baseline(name.replace("-", "_"), seed=seed)
        except ConfigError:
            raise ConfigError(
                f"unknown direction baseline {name!r}; choose one of: {', '.join(SHOWN_BASELINES)}"
            ) from None

    return make


def contestant_of(spec: AgentSpec, gateway: ModelGateway, stream: str, seed: int = 0) -> Contestant:
    """Return the roster entry of ``spec`` in ``stream``: labels from the spec, the agent built.

    ``seed`` is the run's base seed of the seeded baselines (`seeded_baselines`).
    """
    return Contestant(
        entrant=Entrant(
            name=spec.name,
            provider=spec.provider or spec.kind,
            tier=spec.tier or "-",
            model=spec.target,
            model_agent=spec.kind != "baseline",
            cutoff=spec.cutoff,
            cutoff_source=None if spec.cutoff is None else spec.cutoff_source or "spec",
        ),
        agent=build_agent(
            spec,
            gateway=gateway,
            format_name=FORMAT,
            baseline_factory=seeded_baselines(stream, spec.name, seed),
        ),
    )
