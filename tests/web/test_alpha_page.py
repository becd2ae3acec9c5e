"""The agent page's beta and alpha: the scatter of its rounds, the fitted line, the numbers."""

from __future__ import annotations

import re

import numpy as np

from tradeleague.stats import alpha_beta
from tradeleague.web.render import environment


def test_the_scatter_draws_every_round_and_the_fit_and_lists_the_numbers() -> None:
    """A point per round, the line y = alpha + beta x, the words, and a table of the rounds."""
    rng = np.random.default_rng(3)
    bench = [float(x) for x in rng.normal(0.001, 0.01, 40)]
    agent = [0.5 * b + 0.002 for b in bench]
    fit = alpha_beta(agent, bench, rng=np.random.default_rng(1), periods_per_year=252)
    assert fit is not None
    scatter = [{"benchmark": b, "agent": a} for a, b in zip(agent, bench, strict=True)]
    template = environment().from_string(
        '{% from "alpha.html" import alpha_section %}{{ alpha_section(al, scatter, "SPY") }}'
    )
    html = template.render(al=fit.to_payload(), scatter=scatter)
    assert html.count('class="chart-point"') == 40
    assert html.count('class="chart-line"') == 1
    assert 'role="img"' in html
    assert "Beta 0.500 (" in html
    assert "positive alpha, distinguishable from zero" in html
    rows = re.findall(r"<tr><td class=\"num\">(\d+)</td>", html)
    assert rows == [str(i) for i in range(1, 41)]
    empty = template.render(al=None, scatter=[])
    assert "Too few rounds to fit a line against SPY." in empty
    assert "chart-point" not in empty
