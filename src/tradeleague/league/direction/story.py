"""The arena board's race and story (``league.story``): every model's balance, and the leader.

The race is each model's balance after each of its rounds, in board order, from the season's
start balance (visitors are ranked apart and not drawn). The leader is the
first-ranked model, judged by its hit rate as the arena's luck lines are
(D-LCK-3): the expected best hit rate of N coin flips over the leader's
settled trades, and the p-value of the leader's hits as the best of N coins.

A model's ``versus`` is its balance after each round it was in against an
account that called up on every round the model traded (same stake, same
payout, settled on the same prices): the arena's buy-and-hold.
"""

from __future__ import annotations

from typing import Any

from tradeleague.formats.direction.board import Board
from tradeleague.formats.direction.ledger import Entrant, SeasonView
from tradeleague.formats.weights.text import plain_text
from tradeleague.league.story import Lead, Runner, race_payload, story_text, versus_payload
from tradeleague.money import Usd
from tradeleague.sim.binary import BinaryOption, Direction
from tradeleague.stats import expected_top_hit_rate, top_hit_rate_p_value

__all__ = ["BENCHMARK", "direction_story", "direction_versus"]

BENCHMARK = "calling up every round it traded"
"""What a model's balance is drawn against: the arena's buy-and-hold."""


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


def direction_versus(view: SeasonView, entrant: Entrant) -> dict[str, Any] | None:
    """Return the model's ``versus``: its balance per round and the always-up account's."""
    rows = view.log(entrant.name)
    if not rows:
        return None
    start, stake = int(view.start_balance), Usd(int(view.started["stake"]))
    held = start
    points: list[tuple[str, int, int]] = []
    for row in rows:
        if row.settled and row.entry_price and row.exit_price and row.payout_ppm is not None:
            option = BinaryOption(
                direction=Direction.CALL,
                stake=stake,
                entry_price=row.entry_price,
                expiry=row.timestamp,
                payout_ppm=row.payout_ppm,
            )
            held += int(option.settle(row.exit_price).pnl)
        points.append((row.round, int(row.balance_after), held))
    return versus_payload(plain_text(entrant.name), BENCHMARK, "round", start, points)
