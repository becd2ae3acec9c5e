"""Execution through the shared engine, scoring v1 and ranking (W-PF, W-EXE, W-SCO, W-RNK)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from tradeleague.formats.weights import (
    AgentRecord,
    Entry,
    EntryKind,
    UnrankedReason,
    WeightsPreset,
    chart_points,
    max_drawdown_pct,
    rank_table,
    season_return_pct,
    validate_answer,
)
from tradeleague.money import Qty, usd
from tradeleague.sim import Portfolio, Side, rebalance

P = WeightsPreset()
T0 = datetime(2026, 10, 5, 15, tzinfo=UTC)


def test_start_cash() -> None:
    """W-PF-1: every agent starts with 10,000 virtual USD."""
    assert P.start_cash == usd(10_000)


def test_buy_of_2000_takes_2004() -> None:
    """W-EXE-5 (seed example): a buy of 2,000.00 takes 2,004.00 from cash."""
    out = rebalance(
        Portfolio.open(usd(10_000)), {"SPY": 2000}, {"SPY": usd(100)}, params=P.rebalance
    )
    (fill,) = out.fills
    assert fill.side is Side.BUY
    assert fill.value == usd(2_000)
    assert fill.value + fill.fee + fill.slippage == usd("2004")
    assert out.portfolio.cash == usd(10_000) - usd(2_004)


def test_cap_then_execution() -> None:
    """W-PF-3, W-VAL-7, W-EXE-2: a decision puts at most 40% in one symbol."""
    d = validate_answer('{"targets": {"SPY": 80}, "reason": "all in"}', {"SPY"}, P)
    assert not isinstance(d, type(None))
    out = rebalance(Portfolio.open(usd(10_000)), d.targets, {"SPY": usd(100)}, params=P.rebalance)  # type: ignore[union-attr]
    assert out.portfolio.positions["SPY"] * 100 <= usd(4_000) * 1


def test_halted_holding_left_as_it_is() -> None:
    """W-VAL-7, W-EXE-1: a target for a halted symbol leaves its holding; it is valued."""
    book = Portfolio(usd(5_000), {"SPY": Qty(50_000_000)})
    out = rebalance(book, {"SPY": 0}, {"SPY": usd(100)}, halted={"SPY"}, params=P.rebalance)
    assert out.fills == ()
    assert out.value == usd(10_000)


@given(
    st.dictionaries(st.sampled_from(["AAA", "BBB", "CCC"]), st.integers(0, 4_000), max_size=3),
    st.integers(1, 10_000),
)
def test_no_leverage_no_shorts(targets: dict[str, int], price: int) -> None:
    """W-PF-2, W-EXE-6, W-EXE-7: cash and holdings stay >= 0; trading never adds value."""
    prices = {"AAA": usd(price), "BBB": usd(37), "CCC": usd("0.5")}
    if sum(targets.values()) > 10_000:
        targets = {s: w // 2 for s, w in targets.items()}
    book = Portfolio.open(usd(10_000))
    for _ in range(2):
        out = rebalance(book, targets, prices, params=P.rebalance)
        assert out.portfolio.cash >= 0
        assert all(q > 0 for q in out.portfolio.positions.values())
        assert out.portfolio.equity(prices) <= book.equity(prices)
        sides = [f.side for f in out.fills]
        assert sides == sorted(sides, key=lambda s: s is Side.BUY)  # W-EXE-4: sells first
        book = out.portfolio


def entries(*values: str, kinds: EntryKind = EntryKind.DECISION, days: bool = True) -> list[Entry]:
    return [
        Entry(
            round=T0 + timedelta(days=i if days else 0, hours=0 if days else i),
            kind=kinds,
            value=usd(v),
        )
        for i, v in enumerate(values)
    ]


def test_seed_scoring_example() -> None:
    """W-SCO-2 (seed example): 10,231.40, 10,035.20, 10,684.00 gives +6.84% and -1.92%."""
    es = entries("10231.40", "10035.20", "10684.00")
    assert season_return_pct(P.start_cash, es) == Decimal("6.84")
    assert max_drawdown_pct(es) == Decimal("-1.92")


def test_half_rounds_toward_higher() -> None:
    """W-SCO-2: an exact half rounds toward the higher value."""
    assert season_return_pct(P.start_cash, entries("10000.50")) == Decimal("0.01")
    assert season_return_pct(P.start_cash, entries("9999.50")) == Decimal("0.00")


def test_chart_one_point_per_day() -> None:
    """W-SCO-1 entries, W-SCO-3: one chart point per trading day, the day's last entry."""
    es = [
        *entries("10000", "10100", "10050", days=False),
        Entry(
            round=T0 + timedelta(days=1), kind=EntryKind.SKIPPED, value=usd(9900), reason_code="x"
        ),
    ]
    assert chart_points(es) == [
        (T0.date(), usd(10_050)),
        ((T0 + timedelta(days=1)).date(), usd(9_900)),
    ]


def rec(
    agent: str,
    values: list[str],
    trades: int = 0,
    created: int = 0,
    kind: EntryKind = EntryKind.DECISION,
) -> AgentRecord:
    return AgentRecord(
        agent=agent,
        name=agent,
        created_at=T0 - timedelta(days=10) + timedelta(minutes=created),
        entries=entries(*values, kinds=kind),
        trades=trades,
    )


def test_ranking_order_and_reasons() -> None:
    """W-RNK-1 reasons in order, W-RNK-2 tie-breaks, W-RNK-3 ranks 1, 2, 3 then unranked."""
    five = ["10000"] * 4
    latest = T0 + timedelta(days=4)
    records = [
        rec("a", [*five, "10100"], trades=5),
        rec("b", [*five, "10100"], trades=3),
        rec("c", [*five, "10100"], trades=3, created=-1),
        rec("d", [*five, "10200"]),
        rec("new", ["10500"]),
        rec("nodec", [*five, "10600"], kind=EntryKind.NO_DECISION),
        rec("gone", five),
    ]
    table = rank_table(records, latest, P)
    assert [(r.agent, r.rank) for r in table[:4]] == [("d", 1), ("c", 2), ("b", 3), ("a", 4)]
    reasons = {r.agent: r.unranked_reason for r in table[4:]}
    assert reasons == {
        "new": UnrankedReason.FEW_TRADING_DAYS,
        "nodec": UnrankedReason.FEW_DECISIONS,
        "gone": UnrankedReason.FEW_TRADING_DAYS,
    }
    assert [r.agent for r in table[4:]] == ["nodec", "new", "gone"]
    assert all(r.scoring_version == P.scoring_version for r in table)  # W-SEA-3


def test_not_in_latest_ranked_round() -> None:
    """W-RNK-1: an agent that took no part in the latest ranked round is unranked."""
    r = rec("p", ["10000"] * 5)
    table = rank_table([r], T0 + timedelta(days=9), P)
    assert table[0].rank is None
    assert table[0].unranked_reason is UnrankedReason.NOT_IN_LATEST_ROUND


def test_drawdown_tie_break() -> None:
    """W-RNK-2: equal return, the lower max drawdown ranks first."""
    latest = T0 + timedelta(days=4)
    smooth = rec("smooth", ["10000", "10000", "10000", "10000", "10100"])
    bumpy = rec("bumpy", ["10000", "9000", "10000", "10000", "10100"])
    table = rank_table([bumpy, smooth], latest, P)
    assert [r.agent for r in table] == ["smooth", "bumpy"]
