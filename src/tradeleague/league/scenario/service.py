"""The scenario service: provisioning, keys, quotas and the run loop on the store.

One `ScenarioService` serves the REST API, the MCP server and the CLI, so
every interface gets the same rules. It is composed of parts, one module per
responsibility, each a plain object the service holds and delegates to:

- ``ledger`` (`tradeleague.accounts.Ledger`): store, clock and transactions
  (the per-run write lock of S-SVC-2), shared by every part;
- ``accounts`` (`tradeleague.accounts.ApiAccounts`): API keys (S-SVC-4);
- ``catalogue`` (`tradeleague.league.scenario.scenarios.Catalogue`): the
  scenario versions (S-SCN-1, S-SCN-2);
- ``book`` (`tradeleague.league.scenario.book.RunBook`): the runs' states and
  owners this process keeps;
- ``loop`` (`tradeleague.league.scenario.runs.AgentLoop`): quotas (S-SVC-5),
  the agent loop (S-API-1, S-API-2, S-API-4) and abandonment (S-SVC-3);
- ``stepper`` (`tradeleague.league.scenario.steps.Stepper`): the step
  (S-API-3), alone or many in one transaction;
- ``publisher`` (`tradeleague.league.scenario.publishing.Publisher`):
  publishing and the public reads (S-API-5, S-SCO-2).

Every number of the seed (quotas, idle limit, idempotency window, checkout
URL) comes from the service's `ServicePreset`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa

from tradeleague.accounts import Account, ApiAccounts, Credential, Ledger, Tier
from tradeleague.clock import Clock
from tradeleague.formats.scenario import (
    ScenarioBars,
    ScenarioConfig,
    ScenarioResults,
    ServicePreset,
)
from tradeleague.formats.scenario.luck import RunRecord
from tradeleague.formats.weights.luck import TableLuck
from tradeleague.league.scenario.book import RunBook
from tradeleague.league.scenario.publishing import Publisher
from tradeleague.league.scenario.runs import AgentLoop
from tradeleague.league.scenario.scenarios import Catalogue, Scenario
from tradeleague.league.scenario.steps import Stepper
from tradeleague.sim import Order
from tradeleague.store import Store

__all__ = ["ScenarioService"]


class ScenarioService:
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

    def __init__(self, store: Store, clock: Clock, *, preset: ServicePreset | None = None) -> None:
        self.store = store
        self.clock = clock
        self.preset = preset if preset is not None else ServicePreset()
        self.ledger = Ledger(store, clock)
        self.accounts = ApiAccounts(self.ledger)
        self.catalogue = Catalogue(self.ledger)
        self.book = RunBook()
        self.loop = AgentLoop(self.ledger, self.preset, self.catalogue, self.book)
        self.stepper = Stepper(self.ledger, self.preset, self.catalogue, self.book, self.loop)
        self.publisher = Publisher(self.ledger, self.catalogue, self.book)

    # -- transactions (`Ledger`) -----------------------------------------------------------

    @contextmanager
    def write(self, doing: str, *, enclosing: bool = False) -> Iterator[sa.Connection]:
        """Yield a connection in a writer's transaction (see `Ledger.write`)."""
        with self.ledger.write(doing, enclosing=enclosing) as connection:
            yield connection

    @contextmanager
    def read(self, doing: str) -> Iterator[sa.Connection]:
        """Yield a connection in a read transaction."""
        with self.ledger.read(doing) as connection:
            yield connection

    # -- scenarios (`Catalogue`) -----------------------------------------------------------

    def provision(self, config: ScenarioConfig, bars: ScenarioBars) -> Scenario:
        """Store ``bars`` under ``config`` as a new immutable version (S-SCN-1, S-SCN-2)."""
        return self.catalogue.provision(config, bars)

    def scenario(self, scenario_id: str) -> Scenario:
        """Return a scenario version; 404 ``scenario_not_found``."""
        return self.catalogue.scenario(scenario_id)

    def scenario_by_ref(self, ref: str) -> Scenario:
        """Return the scenario version ``ref`` names: its id, or a name's latest version."""
        return self.catalogue.scenario_by_ref(ref)

    def scenarios(self) -> list[dict[str, object]]:
        """Return every scenario version, newest name-version last."""
        return self.catalogue.scenarios()

    # -- accounts (`ApiAccounts`) ----------------------------------------------------------

    def create_key(self, account: str, tier: Tier) -> str:
        """Create (or re-tier) ``account`` and return a new API key for it, once."""
        return self.accounts.create_key(account, tier)

    def forget_key(self, key_hash: str) -> None:
        """Drop a key from this process's cache (it was revoked here)."""
        self.accounts.forget_key(key_hash)

    def authenticate(self, key: str | Credential | None) -> Account:
        """Return the account ``key`` authorises (S-SVC-4); 401 otherwise, saying how to fix it."""
        return self.accounts.authenticate(key)

    def usage(self, account: str, tier: Tier) -> dict[str, object]:
        """Return the runs ``account`` started this UTC month against its quota (S-SVC-5)."""
        return self.loop.usage(account, tier)

    # -- the agent loop (`AgentLoop`, `Stepper`) --------------------------------------------

    def create_run(self, account: Account, scenario_id: str) -> dict[str, object]:
        """Start a run of ``scenario_id`` (an id or a name), pinned to it (S-SVC-5 quota)."""
        return self.loop.create_run(account, scenario_id)

    def run(self, account: Account, run_id: str) -> dict[str, object]:
        """Return one of the account's runs: its scenario, status, bar and queued orders."""
        return self.loop.run(account, run_id)

    def runs(self, account: Account) -> list[dict[str, object]]:
        """Return every run of the account, oldest first (``GET /runs?mine``)."""
        return self.loop.runs(account)

    def market(self, account: Account, run_id: str) -> dict[str, object]:
        """Return the run's current bar, recent history and portfolio (S-API-1)."""
        return self.loop.market(account, run_id)

    def trade(self, account: Account, run_id: str, orders: Sequence[Order]) -> dict[str, object]:
        """Queue market orders for the next step (S-API-2)."""
        return self.loop.trade(account, run_id, orders)

    def cancel_order(self, account: Account, run_id: str, position: int) -> dict[str, object]:
        """Cancel the queued order at ``position`` (0 first); orders already filled stay."""
        return self.loop.cancel_order(account, run_id, position)

    def results(self, account: Account, run_id: str) -> dict[str, object]:
        """Return a completed run's metrics (S-API-4); 409 ``run_not_complete`` before."""
        return self.loop.results(account, run_id)

    def sweep_abandoned(self) -> int:
        """Mark every active run idle for the preset's ``idle_limit``; return how many (S-SVC-3)."""
        return self.loop.sweep_abandoned()

    def step(self, account: Account, run_id: str) -> dict[str, object]:
        """Advance the run one bar, filling queued orders at the next open (S-API-3, S-SVC-2)."""
        return self.stepper.step(account, run_id)

    def step_many(
        self, requests: Sequence[tuple[Account, str]]
    ) -> list[dict[str, object] | BaseException]:
        """Step each ``(account, run_id)`` in order, in one transaction when all go well."""
        return self.stepper.step_many(requests)

    # -- publishing and public reads (`Publisher`) ------------------------------------------

    def publish(self, account: Account, run_id: str) -> dict[str, object]:
        """Opt a completed run into the public leaderboard (S-API-5, S-SCO-2)."""
        return self.publisher.publish(account, run_id)

    def public_run(self, run_id: str) -> dict[str, object]:
        """Return a published run's results, without a key (S-SVC-4); 404 otherwise."""
        return self.publisher.public_run(run_id)

    def published(self, scenario_id: str) -> list[tuple[str, str, ScenarioResults]]:
        """Return ``(run id, account, results)`` of the published runs, oldest first."""
        return self.publisher.published(scenario_id)

    def published_counts(self) -> dict[str, int]:
        """Return how many published runs each scenario version has."""
        return self.publisher.published_counts()

    def run_record(self, run_id: str) -> tuple[RunRecord, list[dict[str, object]]]:
        """Return a run's record (equity path, trade count) and its fills, from its events."""
        return self.publisher.run_record(run_id)

    def board_luck(self, scenario_id: str, records: Sequence[RunRecord]) -> TableLuck:
        """Return the ST-2 columns of a leaderboard of ``records`` (`scenario_luck`)."""
        return self.publisher.board_luck(scenario_id, records)
