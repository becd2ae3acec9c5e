"""Scores, ranks, group rows and the luck columns from log rows (D-SCO-1..6, D-LCK-1..3)."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

import pytest

from tradeleague.formats.direction.board import UnrankedReason, model_row, rank_rows
from tradeleague.formats.direction.labels import MarketLabel, market_label
from tradeleague.formats.direction.ledger import Entrant, LogRow
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.season import SeasonEnd, season_end
from tradeleague.money import Usd, usd
from tradeleague.sim import Direction, OptionResult
from tradeleague.stats import expected_top_hit_rate

BASE = usd(50_000)
T0 = datetime(2025, 9, 1, tzinfo=UTC)


def _rows(results: list[str], payout: int = 800_000) -> list[LogRow]:
    balance, rows = BASE, []
    for i, result in enumerate(results):
        pnl = {"win": usd(10) * payout // 1_000_000, "loss": -usd(10), "draw": 0}.get(result)
        balance = Usd(balance + (pnl or 0))
        rows.append(
            LogRow(
                round=f"r{i}",
                timestamp=T0,
                direction="up" if result != "timeout" else None,
                entry_price=usd(100),
                exit_price=usd(101) if pnl is not None else None,
                result=result,
                detail=None,
                pnl=None if pnl is None else Usd(pnl),
                payout_ppm=payout if pnl is not None else None,
                balance_after=balance,
                rationale="r",
            )
        )
    return rows


def _entrant(name: str, provider: str = "p", tier: str = "TOP") -> Entrant:
    return Entrant(name=name, provider=provider, tier=tier, model=f"{provider}/{name}")


def test_direction_scores_from_log_rows() -> None:
    """D-SCO-1, D-SCO-2, D-SCO-4: ROI, hit rate without draws/skips, answer rate, streak."""
    rows = _rows(["win", "loss", "draw", "timeout", "void", "win", "draw", "win"])
    row = model_row(_entrant("a"), rows, BASE, 20)
    assert row.tally.balance == BASE + 3 * usd(8) - usd(10)
    assert row.roi == Fraction(usd(14), BASE)
    assert row.hit_rate == Fraction(3, 4)
    assert row.answer_rate == Fraction(6, 7)
    assert row.skips == {"timeout": 1, "void": 1}
    assert row.streak == 2
    assert row.tally.settled == 6


def test_direction_board_row_shows_its_worst_fall_from_a_peak() -> None:
    """Issue 13: each row's max drawdown is read from its own settled balances, baseline
    first (every board row shows value, return, drawdown and trades)."""
    rows = _rows(["win", "win", "loss", "loss", "loss", "timeout", "win"])
    row = model_row(_entrant("a"), rows, BASE, 20)
    peak = BASE + 2 * usd(8)  # after the two wins
    trough = peak - 3 * usd(10)  # after the three losses; the timeout settles nothing
    assert row.max_drawdown == Fraction(peak - trough, peak)
    assert model_row(_entrant("b"), _rows(["win", "draw", "win"]), BASE, 20).max_drawdown == 0
    fresh = model_row(_entrant("c"), [], BASE, 20)
    assert fresh.max_drawdown == 0  # no settled round yet: no fall
    assert rank_rows([row])[0].max_drawdown == row.max_drawdown  # ranking keeps it


def test_direction_streak_signs() -> None:
    """D-SCO-4: a miss starts or extends a losing run; a draw leaves it unchanged."""
    row = model_row(_entrant("a"), _rows(["win", "loss", "draw", "loss", "timeout"]), BASE, 20)
    assert row.streak == -2


def test_direction_rank_order_and_ties() -> None:
    """D-SCO-3: ROI, then hit rate, then balance; the same data gives the same board.

    A model with no settled trade (``d``: ROI 0 above every loser) is not ranked:
    it follows the ranked ones with its reason, and their order is unchanged (ours).
    """
    a = model_row(_entrant("a"), _rows(["win", "loss", "draw"]), BASE, 20)
    b = model_row(_entrant("b"), _rows(["draw", "win", "loss"]), BASE, 20)
    c = model_row(_entrant("c"), _rows(["win"]), BASE, 20)
    d = model_row(_entrant("d"), _rows(["timeout"]), BASE, 20)
    ranked = rank_rows([d, b, a, c])
    assert [r.entrant.name for r in ranked] == ["c", "a", "b", "d"]
    assert [r.rank for r in ranked] == [1, 2, 3, None]
    assert [r.unranked for r in ranked] == [None, None, None, UnrankedReason.NO_SETTLED_TRADE]
    assert [r.entrant.name for r in rank_rows([a, b, c, d])] == ["c", "a", "b", "d"]
    assert [r.entrant.name for r in rank_rows([a, b, c])] == ["c", "a", "b"]
    # equal ROI, higher hit rate first
    e = model_row(_entrant("e"), _rows(["loss", "win", "win", "loss", "draw"]), BASE, 20)
    f = model_row(_entrant("f"), _rows(["loss", "win", "win", "loss"]), BASE, 20)
    assert e.roi == f.roi
    assert [r.entrant.name for r in rank_rows([f, e])] == ["e", "f"]


def test_direction_group_rows_are_sums_not_averages() -> None:
    """D-SCO-5: a provider row is its summed balances over summed baselines."""
    from tradeleague.formats.direction.board import _groups

    rows = rank_rows(
        [
            model_row(_entrant("a", "p1", "TOP"), _rows(["win"] * 5), BASE, 20),
            model_row(_entrant("b", "p1", "ECO"), _rows(["loss"]), BASE, 20),
            model_row(_entrant("c", "p2", "TOP"), _rows(["loss", "loss"]), BASE, 20),
        ]
    )
    providers = {g.name: g for g in _groups(rows, "provider")}
    assert providers["p1"].tally.balance == 2 * BASE + 5 * usd(8) - usd(10)
    assert providers["p1"].roi == Fraction(5 * usd(8) - usd(10), 2 * BASE)
    assert providers["p1"].hit_rate == Fraction(5, 6)
    mean_of_rates = sum(r.hit_rate or 0 for r in rows[:2]) / 2
    assert providers["p1"].hit_rate != mean_of_rates
    tiers = {g.name: g for g in _groups(rows, "tier")}
    assert tiers["TOP"].members == ("a", "c")


def test_direction_break_even_and_luck_columns() -> None:
    """D-SCO-6, D-LCK-1, D-LCK-2: break-even 55.56%, the interval, trades to prove."""
    from tradeleague.formats.direction.board import Board

    rows = _rows(["win"] * 531 + ["loss"] * 469)
    row = rank_rows([model_row(_entrant("a"), rows, BASE, 20)])[0]
    board = Board(
        season="S1", scoring_version="x", payout_ppm=800_000, rounds=1000, void_rounds=0,
        models=(row,), providers=(), tiers=(), visitors=(), luckiest_trades=1000, luckiest=None,
    )  # fmt: skip
    assert board.break_even == Fraction(5, 9)
    assert board.below_break_even(row)
    ci = row.interval
    assert ci is not None
    assert ci.low == pytest.approx(0.531 - 1.96 * (0.531 * 0.469 / 1000) ** 0.5)
    assert row.contains_coin is False
    assert row.trades_to_prove == 2040
    assert len(row.sparkline) == 20
    assert row.sparkline[-1] == row.tally.balance


def test_direction_luckiest_line_matches_the_seed() -> None:
    """D-LCK-3: 15 coin flips over 750 trades: the top is expected near 53.2%."""
    assert round(expected_top_hit_rate(750, 15) * 100, 1) == 53.2


def test_direction_market_label_from_verdicts() -> None:
    """D-TRD-5: the label comes from the broker's verdicts, conflicts reported."""
    assert market_label([(Direction.CALL, OptionResult.LOSS)]) is MarketLabel.DOWN
    assert market_label([(Direction.PUT, OptionResult.DRAW)]) is MarketLabel.FLAT
    assert market_label([]) is MarketLabel.NONE
    both = [(Direction.CALL, OptionResult.WIN), (Direction.PUT, OptionResult.WIN)]
    assert market_label(both) is MarketLabel.CONFLICT


def test_direction_season_rules() -> None:
    """D-SEA-1: 30 days, then a reset; an account under 200 ends the season early."""
    preset = DirectionPreset()
    from datetime import timedelta

    later = T0 + timedelta(days=30)
    assert season_end(preset, T0, later - timedelta(minutes=5), {"a": BASE}) is None
    assert season_end(preset, T0, later, {"a": BASE}) is SeasonEnd.LENGTH
    assert season_end(preset, T0, T0, {"a": usd("199.99")}) is SeasonEnd.FLOOR
    assert season_end(preset, T0, T0, {"a": usd(200)}) is None
