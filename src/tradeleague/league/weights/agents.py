"""Agents for the weights league: baselines rendered as answers, and specs built.

A weights baseline decides over ``WeightsView`` and its targets are rendered
into the answer format (``render_answer``), then validated like any model's
answer (C-2). A baseline's "keep the portfolio as it is" (``None``) is rendered
as the current weights rounded down to hundredths of a percent: the format has
no "keep" answer, so a holding that has drifted above the cap is cut back to
it (W-VAL-7), exactly as for a model answering the same weights.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tradeleague.agents.base import Agent, resume_agent
from tradeleague.agents.baselines import BASELINES, WeightsAgent, WeightsView, make_baseline
from tradeleague.agents.seeds import agent_seed
from tradeleague.agents.spec import AgentSpec, build_agent, parse_agent_spec, providers_for
from tradeleague.errors import ConfigError
from tradeleague.formats.weights import render_answer
from tradeleague.keys import KeyVault, MasterKeyError
from tradeleague.keys.stored import OwnerKeys
from tradeleague.league.weights.state import SeasonState
from tradeleague.llm.gateway import ApiKey, Gateway, ModelGateway
from tradeleague.llm.token_prices import PriceTable
from tradeleague.money import MICRO
from tradeleague.store import Store

__all__ = ["build_agents", "current_weights_bps", "owner_key_readers", "weights_baseline"]

_REASONS = {
    "cash": "Hold everything in cash.",
    "buy-and-hold": "Buy the benchmark once and hold it.",
    "equal-weight": "Spread the portfolio evenly over every symbol.",
    "momentum": "Hold the strongest recent performers in equal weight.",
    "coin-flip": "Hold the symbols a seeded coin picked, in equal weight.",
}


def current_weights_bps(view: WeightsView) -> dict[str, int]:
    """Return each holding's weight in basis points, rounded down (sum at most 100%)."""
    value = view.cash + sum(q * view.prices[s] // MICRO for s, q in view.holdings.items())
    if value <= 0:
        return {}
    return {
        s: (q * view.prices[s] // MICRO) * 10_000 // value for s, q in sorted(view.holdings.items())
    }


def weights_baseline(
    name: str, *, seed: int = 0
) -> tuple[Callable[[Any], Any], Callable[[Any], str]]:
    """Return ``(decide, render)`` of the weights baseline ``name`` (``_`` or ``-`` alike).

    Raises
    ------
    ConfigError
        For an unknown name; the message lists the valid ones.
    """
    key = name.replace("_", "-")
    if key not in BASELINES:
        valid = ", ".join(sorted(BASELINES))
        raise ConfigError(f"unknown weights baseline {name!r}; choose one of: {valid}")
    decide = _Decide(make_baseline(key, seed=seed))

    def render(targets: Any) -> str:
        return render_answer(targets or {}, _REASONS[key])

    return decide, render


def owner_key_readers(
    store: Store, state: SeasonState, environ: Mapping[str, str] | None = None
) -> dict[str, ApiKey]:
    """Return, by agent, a reader of the key its owner stored (opened at call time).

    The vault comes from the master keys in ``environ`` (the process
    environment by default); with none configured, every stored key reads as
    unreadable at the call (W-VAL-8), which counts toward a Pro pause (W-VAL-9).
    """
    try:
        vault: KeyVault | None = KeyVault.from_env(environ)
    except MasterKeyError:
        vault = None
    keys = OwnerKeys(store, vault)
    return {agent: keys.reader(state.season_id, agent) for agent in keys.agents(state.season_id)}


@dataclass(slots=True)
class _Decide:
    """A weights rule as a decision over any view; resumable like the rule it holds."""

    rule: WeightsAgent

    def __call__(self, view: Any) -> dict[str, int]:
        if not isinstance(view, WeightsView):
            raise TypeError("a weights baseline needs a WeightsView")
        targets = self.rule.decide(view)
        return current_weights_bps(view) if targets is None else targets

    def resume(self, turns: int) -> None:
        """Resume the rule after ``turns`` past turns (the seeded coin flip's draws)."""
        resume_agent(self.rule, turns)


def build_agents(
    specs: Sequence[str],
    *,
    gateway: ModelGateway | None = None,
    environ: Mapping[str, str] | None = None,
    seed: int = 0,
    api_keys: Mapping[str, ApiKey] | None = None,
    season: str | None = None,
    prices: PriceTable | None = None,
) -> tuple[list[AgentSpec], dict[str, Agent], Gateway | None]:
    """Parse ``NAME=SPEC`` texts and build their agents (``tradeleague.agents.spec``).

    Returns the specs, the agents by name, and the live gateway made for the
    model agents (``None`` when ``gateway`` was given or none is needed); close
    it when done. With ``season``, each seeded baseline draws from its own seed,
    derived from the season, its name and ``seed`` (`agent_seed`); without it,
    every one uses ``seed``. ``api_keys`` gives, by agent name, the key an owner
    stored (read from the vault at call time) in place of the environment's.
    ``prices`` prices the live gateway's calls (recorded with each call).
    """
    keys = api_keys or {}
    parsed = [parse_agent_spec(s) for s in specs]
    names = [p.name for p in parsed]
    if len(set(names)) != len(names):
        raise ConfigError(f"agent names must be unique: {names}")
    made: Gateway | None = None
    if gateway is None:
        made = Gateway(providers_for(parsed, environ=environ), prices=prices)
        gateway = made

    def factory(agent: str) -> Callable[[str], tuple[Callable[[Any], Any], Callable[[Any], str]]]:
        own = seed if season is None else agent_seed(season, agent, seed)
        return lambda name: weights_baseline(name, seed=own)

    agents = {
        p.name: build_agent(
            p,
            gateway=gateway,
            format_name="weights",
            baseline_factory=factory(p.name),
            environ=environ,
            api_key=keys.get(p.name),
        )
        for p in parsed
    }
    return parsed, agents, made
