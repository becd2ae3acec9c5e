"""Inline SVG charts rendered on the server: a line through values, and a sparkline.

Pure: values in, SVG text out. The text is built from numbers only and a
label escaped here, so a template may mark it safe. A chart always has its
numbers in a table beside it (the template's job).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

__all__ = ["line_chart", "sparkline"]


def _path(values: Sequence[float], width: float, height: float, pad: float) -> str:
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    points = (
        f"{pad + i * step:.1f},{height - pad - (v - low) / span * (height - 2 * pad):.1f}"
        for i, v in enumerate(values)
    )
    return "M" + " L".join(points)


def line_chart(values: Sequence[float], label: str, *, width: int = 640, height: int = 220) -> str:
    """Return an SVG line chart of ``values`` (left to right), scaled to its range.

    ``label`` names the chart for screen readers; with no value the chart says so.
    """
    name = html.escape(label)
    head = (
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{name}" '
        f'preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">'
    )
    if not values:
        return head + f'<text x="10" y="20">{name}: no data</text></svg>'
    low, high = min(values), max(values)
    return (
        head
        + f'<rect x="0" y="0" width="{width}" height="{height}" class="chart-bg"/>'
        + f'<path d="{_path(values, width, height, 16)}" class="chart-line"/>'
        + f'<text x="4" y="12" class="chart-axis">{high:,.2f}</text>'
        + f'<text x="4" y="{height - 4}" class="chart-axis">{low:,.2f}</text>'
        + "</svg>"
    )


def sparkline(values: Sequence[float], label: str, *, width: int = 100, height: int = 24) -> str:
    """Return a small SVG sparkline of ``values`` with no axes."""
    name = html.escape(label)
    if len(values) < 2:
        return f'<span class="muted">{name}: too few points</span>'
    return (
        f'<svg class="spark" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{name}" xmlns="http://www.w3.org/2000/svg">'
        f'<path d="{_path(values, width, height, 2)}" class="chart-line"/></svg>'
    )
