"""Beta and alpha as a board's terminal columns show them, the same in every format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["ALPHA_TEXT", "alpha_cells"]

ALPHA_TEXT: Final = (
    "beta: exposure to the benchmark, fitted on per-round returns; alpha/yr: the return a "
    "round it does not explain, times the rounds a year holds, with a block-bootstrap 95% "
    "interval; 'above 0' or 'below 0' only when the interval excludes zero."
)
"""The beta and alpha columns, explained under every table that shows them."""


def alpha_cells(fit: Mapping[str, Any] | None) -> tuple[str, str]:
    """Return the beta cell and the alpha cell of a fit's JSON (``AlphaBeta.to_payload``).

    The JSON keeps its exact decimals; a person reads two places.
    """
    if fit is None:
        return "-", "too few steps"
    low, high = (float(end) for end in fit["alpha_annualised_ci"])
    mark = {"better": " above 0", "worse": " below 0"}.get(str(fit["outcome"]), "")
    alpha = float(fit["alpha_annualised"])
    return f"{float(fit['beta']):.2f}", f"{alpha:+.2f}% ({low:+.2f}% to {high:+.2f}%){mark}"
