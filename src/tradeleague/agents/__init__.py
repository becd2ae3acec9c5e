"""Agents: who decides. Baselines here; model-driven agents arrive with the gateway."""

from tradeleague.agents.baselines import (
    BASELINES,
    BuyAndHold,
    CashAgent,
    CoinFlip,
    EqualWeight,
    Momentum,
    WeightsAgent,
    WeightsView,
    make_baseline,
)

__all__ = [
    "BASELINES",
    "BuyAndHold",
    "CashAgent",
    "CoinFlip",
    "EqualWeight",
    "Momentum",
    "WeightsAgent",
    "WeightsView",
    "make_baseline",
]
