"""Ranked rows, then the unranked with their reason; verdicts in words with their direction.

Names: W-RNK-2, W-RNK-3 (the split's shape, shared by every format), D-SCO-3 and
S-SCO-2 (each format's own order holds among the ranked), ST-2 (a verdict against
a baseline; "distinguishable" told with its direction).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tradeleague.formats.scenario import Entry, compute_results, rank
from tradeleague.stats import Outcome, outcome, paired_bootstrap, place, verdict_words


def test_place_ranks_the_active_in_order_then_lists_the_rest_w_rnk_2_w_rnk_3() -> None:
    """W-RNK-3: ranks 1, 2, 3 with none shared; the unranked follow in the same order."""
    scores = {"a": 5, "b": 9, "c": 7, "d": 8, "e": 1}
    idle = {"b": "no_settled_trade", "e": "no_step"}
    placed = place(scores, order=lambda n: (-scores[n], n), unranked=idle.get)
    assert [(p.row, p.rank, p.unranked) for p in placed] == [
        ("d", 1, None),
        ("c", 2, None),
        ("a", 3, None),
        ("b", None, "no_settled_trade"),
        ("e", None, "no_step"),
    ]
    # the ranked order is the order without the unranked rows
    alone = place([n for n in scores if n not in idle], order=lambda n: (-scores[n], n),
                  unranked=lambda _: None)  # fmt: skip
    assert [p.row for p in alone] == ["d", "c", "a"]
    assert place([], order=lambda n: n, unranked=lambda _: None) == []


def _test(agent: Sequence[float]) -> Outcome:
    rng = np.random.default_rng(7)
    return outcome(paired_bootstrap(agent, [0.0] * len(agent), rng=rng, resamples=2_000))


def test_a_distinguishable_loss_reads_worse_never_yes_st_2() -> None:
    """ST-2: an agent that lost steadily is "worse than cash", not "yes" (issue 27)."""
    losing = [-0.004 + 0.0005 * ((i % 3) - 1) for i in range(30)]
    winning = [-r for r in losing]
    noise = [0.01 * (1 if i % 2 else -1) for i in range(30)]
    assert _test(losing) is Outcome.WORSE
    assert _test(winning) is Outcome.BETTER
    assert _test(noise) is Outcome.NOT_DISTINGUISHABLE
    assert outcome(None) is Outcome.TOO_FEW
    assert verdict_words(_test(losing), "cash") == "worse than cash"
    assert verdict_words("better", "buy-and-hold") == "better than buy-and-hold"
    assert verdict_words("not_distinguishable", "cash") == "not distinguishable from cash"
    assert verdict_words("too_few", "cash") == "too few steps to test"
    assert {o.value for o in Outcome} == {"better", "worse", "not_distinguishable", "too_few"}


def _entry(run: str, path: list[int]) -> Entry:
    return Entry(run, "acct", compute_results(path, periods_per_year=252.0, liquidated=False))


def test_a_scenario_run_with_no_step_is_listed_unranked_s_sco_2() -> None:
    """S-SCO-2 (and ours): the metric orders the runs that stepped; a run with none follows."""
    cash = 1_000_000_000
    entries = [
        _entry("idle", [cash]),
        _entry("loser", [cash, cash - 10_000_000]),
        _entry("winner", [cash, cash + 10_000_000]),
    ]
    board = rank(entries, "return")
    assert [(r.entry.run_id, r.rank, r.unranked) for r in board] == [
        ("winner", 1, None),
        ("loser", 2, None),
        ("idle", None, "no_step"),
    ]
    lowest_first = rank(entries, "max_drawdown")
    assert [(r.entry.run_id, r.rank) for r in lowest_first] == [
        ("winner", 1),
        ("loser", 2),
        ("idle", None),
    ]
