"""The arena board's race and story (``league.story``): every model's balance, and the leader.

The race is each model's balance after each of its rounds, in board order, from the season's
start balance (visitors are ranked apart and not drawn). The leader is the
first-ranked model, judged by its hit rate as the arena's luck lines are
(D-LCK-3): the expected best hit rate of N coin flips over the leader's
settled trades, and the p-value of the leader's hits as the best of N coins.
"""

from __future__ import annotations

from typing import Any

from tradeleague.formats.direction.board import Board
from tradeleague.formats.direction.ledger import SeasonView
from tradeleague.formats.weights.text import plain_text
from tradeleague.league.story import Lead, Runner, race_payload, story_text
from tradeleague.stats import expected_top_hit_rate, top_hit_rate_p_value

__all__ = ["direction_story"]


def direction_story(view: SeasonView, board: Board) -> dict[str, Any]:
    """Return the board's ``race`` and ``story`` keys."""
    start = int(view.start_balance)
    runners = [
        Runner(
            plain_text(m.entrant.name),
            [start, *(int(r.balance_after) for r in view.log(m.entrant.name))],
            m.entrant.provider == "baseline",
        )
        for m in board.models
    ]
    top = next((r for r in board.models if r.rank == 1), None)
    lead = None
    if top is not None:
        n, trades, rate = len(board.models), top.decided, top.hit_rate
        figure = f"ROI {float(top.roi) * 100:+.2f}%"
        if rate is not None:
            figure += f" (a {float(rate) * 100:.1f}% hit rate over {trades} trades)"
        known = trades > 0
        lead = Lead(
            name=plain_text(top.entrant.name),
            figure=figure,
            agents=n,
            expected=f"a {expected_top_hit_rate(trades, n) * 100:.1f}% hit rate" if known else None,
            p_value=top_hit_rate_p_value(top.tally.wins, trades, n) if known else None,
        )
    return {
        "race": race_payload(runners, start, None if lead is None else lead.name),
        "story": story_text(lead, "No model has a settled trade yet."),
    }
