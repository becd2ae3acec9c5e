"""The scenario service: provisioning, keys, quotas and the run loop on the store.

One `ScenarioService` serves the REST API, the MCP server and the CLI, so
every interface gets the same rules. It is assembled from parts, one module
per responsibility:

- `tradeleague.api.service.base`: store, clock, preset, transactions (the
  per-run write lock of S-SVC-2) and the scenario catalogue (S-SCN-1, S-SCN-2);
- `tradeleague.api.service.accounts`: API keys (S-SVC-4);
- `tradeleague.api.service.runs`: quotas (S-SVC-5), the agent loop
  (S-API-1, S-API-2, S-API-4) and abandonment (S-SVC-3);
- `tradeleague.api.service.steps`: the step (S-API-3), alone or many in one
  transaction;
- `tradeleague.api.service.publishing`: publishing and the public reads
  (S-API-5, S-SCO-2).

Every number of the seed (quotas, idle limit, idempotency window, checkout
URL) comes from the service's `ServicePreset`.
"""

from __future__ import annotations

from tradeleague.api.service.accounts import KEY_CACHE_SECONDS, ServiceAccounts
from tradeleague.api.service.base import AGENT_ACCOUNT, month_bounds, run_stream
from tradeleague.api.service.publishing import ServicePublishing
from tradeleague.api.service.runs import TOUCH_EVERY
from tradeleague.api.service.steps import ServiceSteps
from tradeleague.formats.scenario import ServicePreset

__all__ = [
    "AGENT_ACCOUNT",
    "KEY_CACHE_SECONDS",
    "TOUCH_EVERY",
    "ScenarioService",
    "ServicePreset",
    "month_bounds",
    "run_stream",
]


class ScenarioService(ServiceAccounts, ServiceSteps, ServicePublishing):
    """Every operation of the scenario benchmark, on one store, one clock and one preset.

    Parameters
    ----------
    store
        The event store (its engine also holds the service's tables).
    clock
        Where "now" comes from (a `ReplayClock` in tests: S-SVC-3, S-SVC-5, S-SVC-1).
    preset
        The service's numbers; the default, ``ServicePreset()``, is the seed's.

    Examples
    --------
    >>> from tradeleague.clock import WallClock
    >>> from tradeleague.store import open_store
    >>> service = ScenarioService(  # doctest: +SKIP
    ...     open_store("sqlite:///league.db"),
    ...     WallClock(),
    ...     preset=ServicePreset(free_quota=10, checkout_url="https://example.org/pro"),
    ... )
    """
