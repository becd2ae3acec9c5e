"""The decisions the seed leaves open, as the direction arena's methodology page states them."""

from __future__ import annotations

from typing import Final

__all__ = ["DIRECTION_NOTES"]

DIRECTION_NOTES: Final = (
    "Who is ranked: the seed ranks the models by ROI, then hit rate, then balance. We rank "
    "only the models with at least one settled trade this season, in that order; a model "
    "with none (a missing or rejected key, a provider that never answered in time, every "
    'answer a skip) is listed after them, unranked, with the reason "no settled trade". '
    "Its balance is untouched, so its ROI of 0.00% would otherwise sit above every model "
    "that traded and lost. The ranked models keep the order they would have without it.",
)
"""The arena's open decisions: who is ranked."""
