"""Scenario versions in the database: the frozen rules and bars of each (S-SCN-1, S-SCN-2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import sqlalchemy as sa

from tradeleague.api.service.tables import scenario_bars, scenario_versions
from tradeleague.api.service.views import BarViews, scenario_view
from tradeleague.formats.scenario import ScenarioBars, ScenarioConfig
from tradeleague.sim import OrderRules

__all__ = ["Scenario", "insert_version", "latest_version", "load_scenario"]

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
