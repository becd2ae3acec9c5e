"""Provision a scenario from a market folder or a dataset (``tradeleague scenario create``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from tradeleague.formats.scenario import (
    DEFAULT_CASH,
    ScenarioBars,
    ScenarioConfig,
    SlippageTiers,
    default_slippage,
    periods_per_year,
)
from tradeleague.league.scenario.scenarios import Scenario
from tradeleague.league.scenario.service import ScenarioService
from tradeleague.market import Dataset, load_dataset
from tradeleague.money import Usd

__all__ = ["provision_from_market"]


def provision_from_market(
    service: ScenarioService,
    name: str,
    market: str | Dataset,
    symbols: Sequence[str],
    start: datetime,
    end: datetime,
    *,
    leverage_cap: int = 1,
    allow_short: bool = False,
    cash: Usd = DEFAULT_CASH,
    slippage: Mapping[str, int] | None = None,
    tiers: SlippageTiers | None = None,
) -> Scenario:
    """Copy the bars of ``symbols`` in ``[start, end)`` into a new scenario version.

    Parameters
    ----------
    market
        A data folder (``../shared/data/us_equities_1h``) or a loaded dataset.
    slippage
        Per-symbol basis points that override the S-FIL-2 defaults.
    tiers
        The default slippage tiers; the service preset's (``service.preset.slippage``)
        unless given.

    Raises
    ------
    DataError
        If the folder or a symbol is missing, or the range holds no bars.
    ValueError
        If the rules are invalid or fewer than two common bars remain.
    """
    names = tuple(sorted(dict.fromkeys(s.strip().upper() for s in symbols if s.strip())))
    if isinstance(market, Dataset):
        dataset = market.select(names, start, end)
    else:
        dataset = load_dataset(market, symbols=names, start=start, end=end)
    bars = ScenarioBars.from_dataset(dataset, names)
    config = ScenarioConfig(
        name=name,
        symbols=names,
        start=start,
        end=end,
        leverage_cap=leverage_cap,
        allow_short=allow_short,
        cash=cash,
        slippage_bps=default_slippage(names, slippage, tiers or service.preset.slippage),
        market=dataset.label,
        synthetic=dataset.synthetic,
        periods_per_year=periods_per_year(dataset.bar_size, dataset.calendar.continuous),
    )
    return service.provision(config, bars)
