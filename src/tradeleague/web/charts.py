"""Inline SVG charts rendered on the server: a line, a sparkline, a cloud, a scatter with its fit.

Pure: values in, SVG text out. The text is built from numbers only and a
label escaped here, so a template may mark it safe. A chart always has its
numbers in a table beside it (the template's job).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["RaceLine", "cloud_chart", "line_chart", "race_chart", "scatter_chart", "sparkline"]


def _path(values: Sequence[float], width: float, height: float, pad: float) -> str:
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    points = (
        f"{pad + i * step:.1f},{height - pad - (v - low) / span * (height - 2 * pad):.1f}"
        for i, v in enumerate(values)
    )
    return "M" + " L".join(points)


def _chart_head(css: str, label: str, width: int, height: int) -> str:
    """Return a chart's opening ``<svg>`` tag, named ``label`` for screen readers."""
    return (
        f'<svg class="{css}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{html.escape(label)}" preserveAspectRatio="none" '
        'xmlns="http://www.w3.org/2000/svg">'
    )


def _no_data(head: str, label: str) -> str:
    return head + f'<text x="10" y="20">{html.escape(label)}: no data</text></svg>'


def line_chart(values: Sequence[float], label: str, *, width: int = 640, height: int = 220) -> str:
    """Return an SVG line chart of ``values`` (left to right), scaled to its range.

    ``label`` names the chart for screen readers; with no value the chart says so.
    """
    head = _chart_head("chart", label, width, height)
    if not values:
        return _no_data(head, label)
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


def cloud_chart(
    bins: Sequence[tuple[float, float, int]],
    marks: Sequence[tuple[str, float]],
    label: str,
    *,
    expected: tuple[str, float] | None = None,
    width: int = 640,
    height: int = 160,
) -> str:
    """Return an SVG histogram of ``bins`` (low, high, count) with a line at each mark.

    The x axis spans the bins and the marks (a mark beyond the bins still shows);
    each mark (name, x) is a vertical line titled with its name and value. The
    figure names what it draws: a zero line where zero is in range, the marks
    as "this table's agents", and ``expected`` (its words, its x) as a dashed
    line labelled with its words.
    """
    head = _chart_head("chart cloud", label, width, height)
    if not bins:
        return _no_data(head, label)
    pad = 16.0
    xs = [b[0] for b in bins] + [b[1] for b in bins] + [x for _, x in marks]
    xs += [] if expected is None else [expected[1]]
    low, high = min(xs), max(xs)
    span = (high - low) or 1.0
    top = max(b[2] for b in bins) or 1

    def at(x: float) -> float:
        return pad + (x - low) / span * (width - 2 * pad)

    parts = [head, f'<rect x="0" y="0" width="{width}" height="{height}" class="chart-bg"/>']
    base = height - pad
    for lo, hi, count in bins:
        h = count / top * (height - 2 * pad)
        parts.append(
            f'<rect x="{at(lo):.1f}" y="{base - h:.1f}" width="{max(at(hi) - at(lo), 0.5):.1f}" '
            f'height="{h:.1f}" class="chart-bar" fill="#9db4d0"/>'
        )
    for who, x in marks:
        title = html.escape(f"{who}: {x:+.2f}%")
        parts.append(
            f'<line x1="{at(x):.1f}" y1="{pad / 2:.1f}" x2="{at(x):.1f}" y2="{base:.1f}" '
            f'class="chart-mark" stroke="#b3261e" stroke-width="2" '
            f'vector-effect="non-scaling-stroke"><title>{title}</title></line>'
        )
    if low <= 0 <= high:
        parts.append(
            f'<line x1="{at(0):.1f}" y1="{pad / 2:.1f}" x2="{at(0):.1f}" y2="{base:.1f}" '
            'class="chart-zero"/>'
        )
        parts.append(f'<text x="{at(0) + 2:.1f}" y="{pad:.1f}" class="chart-axis">0%</text>')
    if expected is not None:
        words, x = expected
        anchor = "end" if at(x) > width / 2 else "start"
        nudge = -3 if anchor == "end" else 3
        parts.append(
            f'<line x1="{at(x):.1f}" y1="{pad / 2:.1f}" x2="{at(x):.1f}" y2="{base:.1f}" '
            'class="chart-expected"/>'
        )
        parts.append(
            f'<text x="{at(x) + nudge:.1f}" y="{pad + 12:.1f}" text-anchor="{anchor}" '
            f'class="chart-name">{html.escape(words)}</text>'
        )
    if marks:
        parts.append(
            f'<text x="{width - 4}" y="{pad:.1f}" text-anchor="end" class="chart-name '
            "chart-marks-key\">red lines: this table's agents</text>"
        )
    parts.append(f'<text x="4" y="{height - 2}" class="chart-axis">{low:+.2f}%</text>')
    parts.append(
        f'<text x="{width - 4}" y="{height - 2}" text-anchor="end" class="chart-axis">'
        f"{high:+.2f}%</text></svg>"
    )
    return "".join(parts)


def scatter_chart(
    points: Sequence[tuple[float, float]],
    fit: tuple[float, float] | None,
    label: str,
    *,
    width: int = 360,
    height: int = 360,
) -> str:
    """Return an SVG scatter of ``points`` (benchmark x, agent y) with the fitted line.

    ``fit`` is ``(alpha, beta)``: the line ``y = alpha + beta * x`` drawn across
    the points' x range; zero lines cross at the origin when it is in range.
    """
    head = _chart_head("chart scatter", label, width, height)
    if not points:
        return _no_data(head, label)
    pad = 16.0
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    low_x, high_x = min([*xs, 0.0]), max([*xs, 0.0])
    low_y, high_y = min([*ys, 0.0]), max([*ys, 0.0])
    if fit is not None:
        ends = [fit[0] + fit[1] * low_x, fit[0] + fit[1] * high_x]
        low_y, high_y = min([low_y, *ends]), max([high_y, *ends])
    span_x, span_y = (high_x - low_x) or 1.0, (high_y - low_y) or 1.0

    def at(x: float, y: float) -> tuple[float, float]:
        return (
            pad + (x - low_x) / span_x * (width - 2 * pad),
            height - pad - (y - low_y) / span_y * (height - 2 * pad),
        )

    zx, zy = at(0.0, 0.0)
    parts = [
        head,
        f'<rect x="0" y="0" width="{width}" height="{height}" class="chart-bg"/>',
        f'<line x1="{pad}" y1="{zy:.1f}" x2="{width - pad}" y2="{zy:.1f}" class="chart-zero"/>',
        f'<line x1="{zx:.1f}" y1="{pad}" x2="{zx:.1f}" y2="{height - pad}" class="chart-zero"/>',
    ]
    for x, y in points:
        cx, cy = at(x, y)
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" class="chart-point"/>')
    if fit is not None:
        x1, y1 = at(low_x, fit[0] + fit[1] * low_x)
        x2, y2 = at(high_x, fit[0] + fit[1] * high_x)
        parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" class="chart-line"/>'
        )
    parts.append(f'<text x="4" y="{height - 4}" class="chart-axis">benchmark step</text>')
    parts.append('<text x="4" y="12" class="chart-axis">agent step</text>')
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class RaceLine:
    """One agent's line in a race: its name, its account values oldest first, and its kind."""

    name: str
    values: Sequence[float]
    baseline: bool = False


def _label(x: float, y: float, text: str, css: str) -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" class="{css}">{html.escape(text)}</text>'


def race_chart(
    lines: Sequence[RaceLine],
    start: float,
    label: str,
    *,
    leader: str | None = None,
    width: int = 640,
    height: int = 240,
) -> str:
    """Return every agent's account value over the season as one SVG, one line per agent.

    Lines share one scale with the starting value drawn across; baselines are
    drawn lighter; ``leader`` and the best baseline (the one ending highest)
    are named at their line's end, in the right margin.
    """
    head = (
        f'<svg class="chart race" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{html.escape(label)}" xmlns="http://www.w3.org/2000/svg">'
    )
    drawn = [line for line in lines if line.values]
    if not drawn:
        return _no_data(head, label)
    pad, right = 16.0, 132.0
    every = [v for line in drawn for v in line.values] + [start]
    low, high = min(every), max(every)
    span = (high - low) or 1.0
    longest = max(len(line.values) for line in drawn)
    step = (width - pad - right) / max(longest - 1, 1)

    def y_of(v: float) -> float:
        return height - pad - (v - low) / span * (height - 2 * pad)

    parts = [head, f'<rect x="0" y="0" width="{width}" height="{height}" class="chart-bg"/>']
    y0 = y_of(start)
    parts.append(
        f'<line x1="{pad}" y1="{y0:.1f}" x2="{width - right}" y2="{y0:.1f}" class="chart-zero"/>'
    )
    parts.append(_label(pad + 2, y0 - 3, f"start {start:,.0f}", "chart-axis"))
    baselines = [line for line in drawn if line.baseline]
    best_base = max(baselines, key=lambda b: b.values[-1]).name if baselines else None
    ends: list[tuple[float, str, str]] = []
    # baselines first, so the agents' lines are drawn over them
    for line in sorted(drawn, key=lambda item: (not item.baseline, item.name == leader)):
        points = " L".join(f"{pad + i * step:.1f},{y_of(v):.1f}" for i, v in enumerate(line.values))
        css = "race-base" if line.baseline else "race-line"
        if line.name == leader:
            css = "race-lead"
        title = html.escape(f"{line.name}: {line.values[-1]:,.2f}")
        parts.append(f'<path d="M{points}" class="{css}"><title>{title}</title></path>')
        if line.name in (leader, best_base):
            ends.append((y_of(line.values[-1]), line.name, css))
    ends.sort()
    last = -1e9
    for y, name, css in ends:
        y = max(y + 4, last + 14)  # two names at one height are stacked, not overlaid
        last = y
        parts.append(_label(width - right + 4, min(y, height - 2), name[:18], f"chart-name {css}"))
    parts.append(f'<text x="4" y="12" class="chart-axis">{high:,.0f}</text>')
    parts.append(f'<text x="4" y="{height - 4}" class="chart-axis">{low:,.0f}</text>')
    parts.append("</svg>")
    return "".join(parts)
