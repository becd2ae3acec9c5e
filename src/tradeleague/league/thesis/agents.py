"""The thesis league's roster: agent specs built into agents, the mirror, entry cycles (T-AGT-1).

``--agent NAME=SPEC`` takes any agent spec (``baseline:cash``, ``scripted:PATH``,
``openai:MODEL@URL``, ``local:NAME``) plus, in this format, ``inverse:SOURCE``:
a mirror of another roster agent (its opens' sides swapped). ``--join NAME=N``
lets an agent enter at cycle N (0 first), so a mirror may join mid-season.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from tradeleague.agents.base import Agent
from tradeleague.agents.inverse import SharedAgent
from tradeleague.agents.seeds import agent_seed
from tradeleague.agents.spec import AgentSpec, build_agent, parse_agent_spec
from tradeleague.agents.thesis import ThesisMirror
from tradeleague.errors import ConfigError
from tradeleague.formats.thesis.baselines import make_baseline
from tradeleague.league.thesis.cycle import Entrant
from tradeleague.llm.gateway import ModelGateway

__all__ = ["ThesisMirror", "build_roster"]


def _join(texts: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for text in texts:
        name, sep, cycle = text.partition("=")
        if not sep or not cycle.strip().isdigit():
            raise ConfigError(f"--join {text!r}: expected NAME=CYCLE, e.g. mirror=20")
        out[name.strip()] = int(cycle)
    return out


def build_roster(
    agent_texts: Sequence[str],
    join_texts: Sequence[str],
    gateway: ModelGateway,
    seed: int = 0,
    *,
    season: str | None = None,
) -> tuple[list[Entrant], dict[str, Agent]]:
    """Return the entrants and their agents from ``--agent`` and ``--join`` texts.

    ``seed`` is the base seed of the coin-flip baselines (``replay thesis --seed``).
    With ``season``, each coin flipper draws from its own seed, derived from the
    season, its name and the base seed (`agent_seed`), as the other formats'
    seeded baselines do; without it (checking a roster) the base seed itself.

    Raises
    ------
    ConfigError
        For a bad spec, a duplicate name, a mirror of an unknown agent, or a
        ``--join`` naming no agent.
    """
    joins = _join(join_texts)
    specs: list[tuple[str, str, AgentSpec | None]] = []
    for text in agent_texts:
        name, sep, rest = text.partition("=")
        if sep and rest.startswith("inverse:"):
            specs.append((name.strip(), rest, None))
        else:
            parsed = parse_agent_spec(text)
            specs.append((parsed.name, text, parsed))
    names = [n for n, _, _ in specs]
    if len(set(names)) != len(names):
        raise ConfigError("each --agent needs its own name")
    unknown = sorted(set(joins) - set(names))
    if unknown:
        raise ConfigError(f"--join names no agent: {', '.join(unknown)}")
    built: dict[str, Agent] = {}
    for name, _, maybe in specs:
        if maybe is not None:
            built[name] = SharedAgent(
                build_agent(
                    maybe,
                    gateway=gateway,
                    format_name="thesis",
                    baseline_factory=functools.partial(
                        make_baseline,
                        seed=seed if season is None else agent_seed(season, name, seed),
                    ),
                )
            )
    for name, text, kind in specs:
        if kind is None:
            source = text.removeprefix("inverse:").strip()
            if source not in built:
                raise ConfigError(f"agent {name!r}: inverse:{source} names no other agent")
            built[name] = ThesisMirror(name=name, source=built[source])
    entrants = [
        Entrant(
            name=name,
            spec=text,
            kind=built[name].kind,
            agentic=built[name].kind == "tools",
            enters=joins.get(name, 0),
        )
        for name, text, _ in specs
    ]
    return entrants, dict(built)
