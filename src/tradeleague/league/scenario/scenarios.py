"""Scenario versions in the database: the frozen rules and bars of each (S-SCN-1, S-SCN-2).

`Catalogue` is the service's part that provisions versions and reads them,
each version's bars read once and kept (a version never changes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import sqlalchemy as sa

from tradeleague.accounts import Ledger
from tradeleague.errors import ServiceError
from tradeleague.formats.scenario import ScenarioBars, ScenarioConfig
from tradeleague.ids import new_id, resolve_name
from tradeleague.league.scenario.tables import scenario_bars, scenario_versions
from tradeleague.league.scenario.views import BarViews, scenario_view
from tradeleague.sim import OrderRules

__all__ = ["Catalogue", "Scenario", "insert_version", "latest_version", "load_scenario"]

_BAR_COLUMNS = ("symbol", "idx", "ts", "open", "high", "low", "close", "volume")


@dataclass(frozen=True, slots=True)
class Scenario:
    """A provisioned scenario version, as the service caches it.

    What every step and market read of its runs would otherwise rebuild is
    built here once: the engine's order rules and the bars' views (a version
    never changes, S-SCN-2).
    """

    id: str
    version: int
    config: ScenarioConfig
    bars: ScenarioBars
    content_hash: str
    created_at: datetime
    rules: OrderRules = field(init=False, repr=False, compare=False)
    views: BarViews = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", self.config.order_rules())
        object.__setattr__(self, "views", BarViews(self.bars))

    def view(self) -> dict[str, object]:
        """Return the scenario as JSON."""
        return scenario_view(
            self.id, self.version, self.config, self.content_hash, len(self.bars), self.created_at
        )


def latest_version(conn: sa.Connection, name: str) -> sa.Row[tuple[object, ...]] | None:
    """Return the newest version row of scenario ``name``, if any."""
    return conn.execute(
        sa.select(scenario_versions)
        .where(scenario_versions.c.name == name)
        .order_by(scenario_versions.c.version.desc())
        .limit(1)
    ).one_or_none()


def insert_version(conn: sa.Connection, scenario: Scenario) -> None:
    """Store ``scenario``'s rules and every bar (the database refuses later changes)."""
    conn.execute(
        sa.insert(scenario_versions).values(
            id=scenario.id,
            name=scenario.config.name,
            version=scenario.version,
            config=scenario.config.to_json(),
            content_hash=scenario.content_hash,
            bars=len(scenario.bars),
            dropped=scenario.bars.dropped,
            created_at=scenario.created_at,
        )
    )
    conn.execute(
        sa.insert(scenario_bars),
        [
            {"scenario_id": scenario.id, **dict(zip(_BAR_COLUMNS, row, strict=True))}
            for row in scenario.bars.rows()
        ],
    )


def load_scenario(conn: sa.Connection, scenario_id: str) -> Scenario | None:
    """Return the stored version ``scenario_id`` with its bars, or ``None``."""
    row = conn.execute(
        sa.select(scenario_versions).where(scenario_versions.c.id == scenario_id)
    ).one_or_none()
    if row is None:
        return None
    columns = [scenario_bars.c[name] for name in _BAR_COLUMNS]
    rows = conn.execute(sa.select(*columns).where(scenario_bars.c.scenario_id == scenario_id)).all()
    bars = ScenarioBars.from_rows([tuple(r) for r in rows], int(row.dropped))
    return Scenario(
        scenario_id,
        int(row.version),
        ScenarioConfig.from_json(str(row.config)),
        bars,
        str(row.content_hash),
        row.created_at,
    )


class Catalogue:
    """The scenario versions: provisioned here, read and kept (S-SCN-1, S-SCN-2).

    Parameters
    ----------
    ledger
        The store, clock and transactions of the service.
    """

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._scenarios: dict[str, Scenario] = {}

    def provision(self, config: ScenarioConfig, bars: ScenarioBars) -> Scenario:
        """Store ``bars`` under ``config`` as a new immutable version (S-SCN-1, S-SCN-2).

        Provisioning the same rules and the same bars as the latest version of
        that name returns that version instead of adding a copy.
        """
        if bars.symbols != config.symbols:
            raise ServiceError(
                422, "invalid_scenario", "The bars' symbols differ from the config's."
            )
        digest = bars.content_hash()
        now = self.ledger.clock.now()
        with self.ledger.write("provision a scenario in") as conn:
            latest = latest_version(conn, config.name)
            if (
                latest is not None
                and latest.content_hash == digest
                and latest.config == config.to_json()
            ):
                return self.scenario(str(latest.id))
            version = 1 if latest is None else int(latest.version) + 1
            scenario = Scenario(new_id(), version, config, bars, digest, now)
            insert_version(conn, scenario)
        self._scenarios[scenario.id] = scenario
        return scenario

    def scenario(self, scenario_id: str) -> Scenario:
        """Return a scenario version (its bars are cached: they never change).

        Raises
        ------
        ServiceError
            404 ``scenario_not_found``.
        """
        cached = self._scenarios.get(scenario_id)
        if cached is not None:
            return cached
        with self.ledger.read("read a scenario from") as conn:
            found = load_scenario(conn, scenario_id)
        if found is None:
            raise ServiceError(404, "scenario_not_found", f"There is no scenario {scenario_id!r}.")
        self._scenarios[scenario_id] = found
        return found

    def scenario_by_ref(self, ref: str) -> Scenario:
        """Return the scenario version ``ref`` names: its id, or a name's latest version.

        One naming rule everywhere a scenario is named (REST, MCP, pages).
        A reference is never ambiguous: ids are upper-case and names
        lower-case, and a name stands for one version, its latest.

        Raises
        ------
        ServiceError
            404 ``scenario_not_found`` when ``ref`` is neither.
        """
        try:
            return self.scenario(ref)
        except ServiceError:
            with self.ledger.read("read a scenario from") as conn:
                latest = latest_version(conn, ref)
            # the one naming rule (`resolve_name`): a name stands for its latest version
            known = [] if latest is None else [(str(latest.id), str(latest.name))]
            found = resolve_name(ref, known, "scenario")
            if found is None:
                raise ServiceError(
                    404,
                    "scenario_not_found",
                    f"There is no scenario with the id or name {ref!r}; "
                    "GET /api/v1/scenarios lists them.",
                ) from None
            return self.scenario(found)

    def scenarios(self) -> list[dict[str, object]]:
        """Return every scenario version, newest name-version last."""
        with self.ledger.read("list scenarios in") as conn:
            ids = conn.execute(
                sa.select(scenario_versions.c.id).order_by(
                    scenario_versions.c.name, scenario_versions.c.version
                )
            ).scalars()
            found = [str(i) for i in ids]
        return [self.scenario(i).view() for i in found]
