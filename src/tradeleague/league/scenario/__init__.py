"""The scenario benchmark in play: the service behind REST, MCP and the CLI, and its reads.

External agents drive the benchmark one step at a time, so it has no rounds
to pace: `ScenarioService` keeps the runs in the store and steps them through
the simulator (the rules are `tradeleague.formats.scenario`'s). Its accounts,
API keys and idempotent requests are `tradeleague.accounts`'.

- `service`: `ScenarioService`, composed of the parts below;
- `scenarios` (the versions, `Catalogue`), `book` (the runs this process
  keeps), `runs` (the agent loop but the step, `AgentLoop`), `steps` (the
  step, alone or batched, `Stepper`), `publishing` (`Publisher`);
- `rows`, `tables`, `views`: statements, tables and JSON views;
- `provision`: a scenario from a market folder (``tradeleague scenario create``);
- `reads`: the public read models (leaderboard, published run, changelog);
- `routes`, `models`, `steplane`, `stepbatch`: its REST routes on the generic
  HTTP kit of `tradeleague.api`; `mcp_tools`: its MCP tools.

The names below load their modules on first use (as the other formats'
packages do), so the format's plug-in object (``plugin.py``) can be read,
by ``tradeleague --help`` among others, without the service's engine; the
HTTP and MCP modules load when imported themselves.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tradeleague.formats.scenario import ServicePreset, SlippageTiers
    from tradeleague.league.scenario.book import run_stream
    from tradeleague.league.scenario.provision import provision_from_market
    from tradeleague.league.scenario.scenarios import Scenario
    from tradeleague.league.scenario.service import ScenarioService

_WHERE = {
    "ServicePreset": "tradeleague.formats.scenario",
    "SlippageTiers": "tradeleague.formats.scenario",
    "run_stream": "tradeleague.league.scenario.book",
    "provision_from_market": "tradeleague.league.scenario.provision",
    "Scenario": "tradeleague.league.scenario.scenarios",
    "ScenarioService": "tradeleague.league.scenario.service",
}

__all__ = [
    "Scenario",
    "ScenarioService",
    "ServicePreset",
    "SlippageTiers",
    "provision_from_market",
    "run_stream",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
