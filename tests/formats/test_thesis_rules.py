"""The thesis league's pure rules, each test naming the SPEC rule it enforces (T-*, ST-1, ST-2)."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from tradeleague.formats.thesis.answer import Answer, AnswerReject, Reason, parse_answer
from tradeleague.formats.thesis.book import Book, Broken, Closed, book_from_payload, book_payload
from tradeleague.formats.thesis.candles import (
    Candle,
    candles_of,
    daily_from_intraday,
    latest_price,
    weekly_from_daily,
)
from tradeleague.formats.thesis.execution import Market, play_attempt
from tradeleague.formats.thesis.indicators import rsi, screen_score
from tradeleague.formats.thesis.inverse import invert_thesis_answer
from tradeleague.formats.thesis.monitor import check_times, run_check
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.prompt import (
    AssetView,
    Snapshot,
    correction_messages,
    cycle_messages,
)
from tradeleague.formats.thesis.scoring import metrics, rank, verdicts
from tradeleague.formats.thesis.screen import run_screen
from tradeleague.formats.thesis.universe import load_universe, normalise
from tradeleague.market.loader import load_dataset
from tradeleague.money import MICRO, usd
from tradeleague.sim import Side
from tradeleague.stats.verdicts import Outcome

PRESET = ThesisPreset()
UNIVERSE = load_universe()
DAY = 86_400


def _answer(*decisions: dict[str, object]) -> str:
    return json.dumps(
        {
            "reasoning": "Momentum is strong. Risk is defined.",
            "market_context": {"overall_sentiment": "bullish", "key_factors": ["flows"]},
            "decisions": list(decisions),
        }
    )


def _open(symbol: str, action: str = "open_long", **extra: object) -> dict[str, object]:
    out: dict[str, object] = {
        "action": action,
        "symbol": symbol,
        "percent_of_equity": 20,
        "invalidation_price": 90 if action == "open_long" else 110,
        "confidence": 0.85,
        "thesis": "Trend continues.",
        "invalidation": "Loses support.",
    }
    out.update(extra)
    return out


def _market(cycle: int = 0, stocks_open: bool = True, **prices: int) -> Market:
    table = {"ETHUSDT": usd(100), "SOLUSDT": usd(100), "AAPL": usd(100), "BRK-B": usd(100)}
    table.update({k: usd(v) for k, v in prices.items()})
    return Market(
        cycle=cycle,
        prices=table,
        eligible=frozenset(table),
        stocks_open=stocks_open,
        universe=UNIVERSE,
    )


def _book() -> Book:
    return Book.open(PRESET.start_cash)


def test_universe_and_benchmarks_t_uni_1() -> None:
    """T-UNI-1: 10 crypto, 50 stocks, 10,000 each; BTC and SPY are refused as positions."""
    assert len(UNIVERSE.crypto) == 10
    assert len(UNIVERSE.stocks) == 50
    assert PRESET.start_cash == usd(10_000)
    assert set(UNIVERSE.benchmarks) == {"BTCUSDT", "SPY"}
    out = play_attempt(_answer(_open("BTC"), _open("SPY")), _book(), _market(), PRESET)
    assert [r.reason for r in out.results] == [Reason.BENCHMARK, Reason.BENCHMARK]
    assert out.book.portfolio.positions == {}


def test_symbols_normalised_and_mapped_back_t_uni_2() -> None:
    """T-UNI-2: ETHUSDT is shown as ETH, BRK-B as BRK.B, and both map back before execution."""
    assert normalise("ETHUSDT") == "ETH"
    assert normalise("BRK-B") == "BRK.B"
    out = play_attempt(_answer(_open("eth"), _open("BRK.B")), _book(), _market(), PRESET)
    assert [r.symbol for r in out.results] == ["ETH", "BRK.B"]
    assert set(out.book.portfolio.positions) == {"ETHUSDT", "BRK-B"}


def test_stock_action_on_a_closed_market_is_rejected_t_uni_3() -> None:
    """T-UNI-3: a stock action while NYSE is closed is rejected (a correction); crypto trades."""
    out = play_attempt(
        _answer(_open("AAPL"), _open("ETH")), _book(), _market(stocks_open=False), PRESET
    )
    assert out.results[0].reason is Reason.MARKET_CLOSED
    assert out.results[1].executed
    assert out.needs_correction


def _daily(closes: list[int], volume: int = 1, start: int = 0) -> list[Candle]:
    return [
        Candle(
            start + i * DAY,
            start + (i + 1) * DAY,
            c * MICRO,
            c * MICRO,
            c * MICRO,
            c * MICRO,
            volume * MICRO,
        )
        for i, c in enumerate(closes)
    ]


def test_screen_score_ranking_and_eligibility_t_cyc_1() -> None:
    """T-CYC-1: mean dollar volume x (1 + |10-day momentum|), top 5 per class, ties by symbol."""
    flat = _daily([100] * 20)
    assert screen_score(flat) == Fraction(100)
    rising = _daily([100] * 10 + [200] * 10)
    # mean(close x volume) = 150; momentum 200/100 - 1 = 1 -> 150 x 2.
    assert screen_score(rising) == Fraction(300)
    assert screen_score(_daily([100] * 19)) is None
    crypto = {f"C{i}USDT": _daily([100 + i] * 20) for i in range(7)}
    crypto["AAAUSDT"] = _daily([106] * 20)  # ties with C6 at 106: symbol order
    stocks = {"OLD": _daily([50] * 25), "GONE": _daily([500] * 24)}
    close = stocks["OLD"][-1].end
    screen = run_screen(crypto, stocks, PRESET, stocks_open_today=True, stock_session_close=close)
    assert [s.symbol for s in screen.crypto] == ["AAAUSDT", "C6USDT", "C5USDT", "C4USDT", "C3USDT"]
    assert [s.symbol for s in screen.stocks] == ["OLD"]  # GONE has no bar for the last session
    closed_day = run_screen(
        crypto, stocks, PRESET, stocks_open_today=False, stock_session_close=close
    )
    assert closed_day.stocks == ()
    assert len(closed_day.crypto) == 5


def test_price_and_candles_follow_observability_t_cyc_2(shared_data: Path) -> None:
    """T-CYC-2: at 16:00 UTC a crypto price is the open of the 16:00 4h bar; days from 4h bars."""
    data = load_dataset(shared_data / "crypto_4h", symbols=["ETHUSDT"])
    candles = candles_of(data["ETHUSDT"])
    moment = int(datetime(2024, 3, 5, 16, tzinfo=UTC).timestamp())
    at = next(c for c in candles if c.start == moment)
    assert latest_price(candles, moment) == at.open
    before = next(c for c in candles if c.end == moment)
    assert latest_price(candles, moment - 1) == before.open  # its close is not known yet
    assert latest_price(candles, moment + 4 * 3600 - 1) == at.open
    assert latest_price(candles[: candles.index(at) + 1], at.end) == at.close
    days = daily_from_intraday([c for c in candles if c.end <= moment])
    today = days[-1]
    assert today.start == moment - 16 * 3600
    assert today.end == today.start + DAY
    four = [c for c in candles if today.start <= c.start < moment]
    assert today.open == four[0].open
    assert today.close == four[-1].close
    assert today.volume == sum(c.volume for c in four)
    weeks = weekly_from_daily(days[:-1])
    assert all(w.end - w.start == 7 * DAY for w in weeks[1:])


def test_rsi_wilder_edges_t_cyc_3() -> None:
    """T-CYC-3: Wilder's RSI-14; None under 15 closes, 100 with no losses, 50 with no moves."""
    assert rsi([1] * 14) is None
    assert rsi([5] * 15) == Decimal(50)
    assert rsi(list(range(1, 30))) == Decimal(100)
    closes = [44, 45, 44, 46, 45, 47, 46, 48, 47, 49, 48, 50, 49, 51, 50]
    changes = [b - a for a, b in itertools.pairwise(closes)]
    gain = Fraction(sum(c for c in changes if c > 0), 14)
    loss = Fraction(sum(-c for c in changes if c < 0), 14)
    expected = 100 - 100 / (1 + gain / loss)
    value = rsi(closes)
    assert value is not None
    assert abs(value - Decimal(expected.numerator) / expected.denominator) < Decimal("1e-20")
    longer = [*closes, 52]
    g = (gain * 13 + 2) / 14
    lo = (loss * 13) / 14
    value = rsi(longer)
    want = 100 - 100 / (1 + g / lo)
    assert value is not None
    assert abs(value - Decimal(want.numerator) / want.denominator) < Decimal("1e-20")
    assert rsi([*([1, 2] * 200)], window=250) == rsi([1, 2] * 125)


def test_open_and_snapshot_values_t_cyc_4_t_act_3() -> None:
    """T-CYC-4, T-ACT-3: sizing is a percent of equity (fee included); the P&L follows."""
    out = play_attempt(_answer(_open("ETH", percent_of_equity=50)), _book(), _market(), PRESET)
    fill = out.results[0].fill
    assert fill is not None
    assert fill.value + fill.fee <= usd(5_000)
    assert fill.value + fill.fee > usd(5_000) - usd(1) // 10
    book = out.book
    assert book.unrealised("ETHUSDT", usd(100)) == -fill.fee
    assert book.unrealised("ETHUSDT", usd(110)) > 0
    assert book.theses["ETHUSDT"].thesis == "Trend continues."


def test_prompt_holds_candles_benchmarks_summary_theses_rules_t_cyc_5_t_mon_2() -> None:
    """T-CYC-5, T-MON-2: screened and held candles, benchmarks, every asset's row, theses, rules."""
    view = AssetView(
        symbol="ETH",
        price="100",
        change_1d="1.00",
        rsi={"4h": "55.00", "1d": None, "1w": None},
        candles={"1d": [["2024-01-01T00:00:00Z", "1", "2", "1", "2", "3"]]},
    )
    bench = replace(view, symbol="BTC")
    summary = [replace(view, symbol=normalise(s), candles={}) for s in UNIVERSE.tradeable]
    snap = Snapshot(
        equity="10000",
        cash="8000",
        positions=[
            {
                "symbol": "ETH",
                "thesis": "Trend continues.",
                "invalidation_price": "90",
                "unrealised_pnl": "-2",
            }
        ],
    )
    system, user = cycle_messages(
        time="2024-03-05T16:00:00Z",
        detailed=[view],
        benchmarks=[bench],
        summary=summary,
        snapshot=snap,
        preset=PRESET,
    )
    assert "percent_of_equity, 10 to 100" in system.content
    assert "at most 10 positions" in system.content
    body = json.loads(user.content)
    assert body["benchmarks"][0]["symbol"] == "BTC"
    assert body["screened_and_held"][0]["candles"]["1d"][0][4] == "2"
    assert len(body["universe"]) == 60
    assert {"ETH", "BRK.B"} <= {r["symbol"] for r in body["universe"]}
    assert body["account"]["positions"][0]["thesis"] == "Trend continues."


def test_schema_and_validation_reason_codes_t_cyc_7_t_act_2() -> None:
    """T-CYC-7, T-ACT-2: parse the JSON, a broken answer whole, each bad action by code."""
    assert isinstance(parse_answer("not json", PRESET), AnswerReject)
    bad = json.dumps(
        {"reasoning": "x", "market_context": {"overall_sentiment": "euphoric"}, "decisions": []}
    )
    rejected = parse_answer(bad, PRESET)
    assert isinstance(rejected, AnswerReject)
    assert rejected.reason is Reason.BAD_SCHEMA
    fenced = parse_answer("```json\n" + _answer() + "\n```", PRESET)
    assert isinstance(fenced, Answer)
    assert fenced.items == ()
    out = play_attempt(
        _answer(
            _open("DOGE2"),
            {"action": "buy", "symbol": "ETH"},
            _open("ETH", percent_of_equity=5),
            _open("SOL", thesis=""),
        ),
        _book(),
        _market(),
        PRESET,
    )
    assert [r.reason for r in out.results] == [
        Reason.UNKNOWN_SYMBOL,
        Reason.BAD_ACTION,
        Reason.BAD_SIZING,
        Reason.MISSING_FIELD,
    ]
    assert out.needs_correction
    empty = play_attempt(_answer(), _book(), _market(), PRESET)
    assert empty.results == ()
    assert not empty.needs_correction


def test_confidence_gate_and_invalidation_side_t_act_4() -> None:
    """T-ACT-4: confidence outside [0.80, 1.00] is rejected; the level sits on the losing side."""
    out = play_attempt(
        _answer(
            _open("ETH", confidence=0.79),
            _open("SOL", confidence=1.01),
            _open("AAPL", invalidation_price=101),
            _open("BRK.B", action="open_short", invalidation_price=99),
        ),
        _book(),
        _market(),
        PRESET,
    )
    assert [r.reason for r in out.results] == [
        Reason.CONFIDENCE_GATE,
        Reason.CONFIDENCE_GATE,
        Reason.INVALIDATION_SIDE,
        Reason.INVALIDATION_SIDE,
    ]


def test_budget_no_leverage_and_short_collateral_t_act_5() -> None:
    """T-ACT-5: gross exposure may not pass equity; a short's proceeds are credited to cash."""
    out = play_attempt(
        _answer(
            _open("ETH", percent_of_equity=60),
            _open("SOL", action="open_short", percent_of_equity=60),
        ),
        _book(),
        _market(),
        PRESET,
    )
    assert out.results[0].executed
    assert out.results[1].reason is Reason.OVER_BUDGET
    short = play_attempt(
        _answer(_open("SOL", action="open_short", percent_of_equity=100)),
        _book(),
        _market(),
        PRESET,
    )
    fill = short.results[0].fill
    assert fill is not None
    assert fill.side is Side.SHORT
    assert short.book.portfolio.cash == PRESET.start_cash + fill.value - fill.fee
    prices = _market().prices
    assert short.book.portfolio.notional(prices) <= short.book.portfolio.equity(prices)


def test_churn_and_no_reopen_t_act_6() -> None:
    """T-ACT-6: one action per symbol, no close when opened, no same-way reopen next cycle."""
    out = play_attempt(
        _answer(_open("ETH"), {"action": "close", "symbol": "ETH"}), _book(), _market(), PRESET
    )
    assert out.results[1].reason is Reason.DUPLICATE_SYMBOL
    again = play_attempt(_answer({"action": "close", "symbol": "ETH"}), out.book, _market(), PRESET)
    assert again.results[0].reason is Reason.CLOSED_SAME_CYCLE
    closed = play_attempt(
        _answer({"action": "close", "symbol": "ETH"}), out.book, _market(cycle=1), PRESET
    )
    assert closed.results[0].executed
    assert closed.book.closed["ETHUSDT"] == Closed(1, 1)
    reopen = play_attempt(
        _answer(_open("ETH"), _open("ETH", action="open_short")),
        closed.book,
        _market(cycle=2),
        PRESET,
    )
    assert reopen.results[0].reason is Reason.NO_REOPEN
    assert reopen.results[1].executed
    later = play_attempt(_answer(_open("ETH")), closed.book, _market(cycle=3), PRESET)
    assert later.results[0].executed
    relaxed = replace(PRESET, churn=False, no_reopen=False)
    free = play_attempt(_answer(_open("ETH")), closed.book, _market(cycle=2), relaxed)
    assert free.results[0].executed


def test_actions_add_close_hold_t_act_1() -> None:
    """T-ACT-1: add only to a winner, partial and full closes, hold moves the level."""
    opened = play_attempt(_answer(_open("ETH")), _book(), _market(), PRESET).book
    loser = play_attempt(
        _answer(_open("ETH", action="add", invalidation_price=90)),
        opened,
        _market(1, ETHUSDT=99),
        PRESET,
    )
    assert loser.results[0].reason is Reason.ADD_NOT_IN_PROFIT
    winner = play_attempt(
        _answer(_open("ETH", action="add", invalidation_price=90)),
        opened,
        _market(1, ETHUSDT=120),
        PRESET,
    )
    assert winner.results[0].executed
    assert winner.book.portfolio.qty("ETHUSDT") > opened.portfolio.qty("ETHUSDT")
    held = opened.portfolio.qty("ETHUSDT")
    half = play_attempt(
        _answer({"action": "close", "symbol": "ETH", "percent_of_position": 50}),
        opened,
        _market(1),
        PRESET,
    )
    assert half.book.portfolio.qty("ETHUSDT") == held - held // 2
    hold = play_attempt(
        _answer(
            {
                "action": "hold",
                "symbol": "ETH",
                "invalidation_price": 95,
                "rationale": "Tighter stop.",
            }
        ),
        opened,
        _market(1),
        PRESET,
    )
    assert hold.book.theses["ETHUSDT"].invalidation_price == usd(95)
    none = play_attempt(_answer({"action": "hold", "symbol": "SOL"}), opened, _market(1), PRESET)
    assert none.results[0].reason is Reason.NO_POSITION


def test_execution_fee_and_rounding_t_cyc_8() -> None:
    """T-CYC-8: quantity rounds down to a millionth; the 0.1% fee rounds up to the micro-dollar."""
    out = play_attempt(
        _answer(_open("ETH", percent_of_equity=10, invalidation_price=2)),
        _book(),
        _market(ETHUSDT=3),
        PRESET,
    )
    fill = out.results[0].fill
    assert fill is not None
    # 10% of 10,000 dollars, fee included (less 100 micro-dollars of rounding slack).
    dollars = usd(1_000) - 100
    assert fill.qty == dollars * MICRO * MICRO // (usd(3) * (MICRO + 1_000))
    assert fill.fee == -(-fill.value * 1_000 // MICRO)
    assert out.book.portfolio.cash == PRESET.start_cash - fill.value - fill.fee


def test_correction_prompt_lists_reasons_trades_and_budget_t_cyc_9() -> None:
    """T-CYC-9: one follow-up: rejection reasons, trades executed, budget left."""
    first = play_attempt(
        _answer(_open("ETH"), _open("SOL", confidence=0.5)), _book(), _market(), PRESET
    )
    assert first.needs_correction
    budget = first.book.budget_left(_market().prices)
    messages = correction_messages((), "raw", first.answer_reject, first.results, budget)
    text = messages[-1].content
    assert "confidence_gate" in text
    assert '"symbol":"ETH"' in text
    assert f'"budget_left":"{Decimal(budget) / MICRO}' in text
    second = play_attempt(_answer(_open("ETH")), first.book, _market(), PRESET, first.acted)
    assert second.results[0].reason is Reason.DUPLICATE_SYMBOL


def test_results_are_recorded_in_canonical_form_t_cyc_10() -> None:
    """T-CYC-10: each decision's outcome has a canonical JSON form with its fill and reason."""
    out = play_attempt(_answer(_open("ETH"), _open("BTC")), _book(), _market(), PRESET)
    done, refused = (r.to_payload() for r in out.results)
    assert done["status"] == "executed"
    assert isinstance(done["fill"], dict)
    assert refused == {
        "action": "open_long",
        "symbol": "BTC",
        "status": "rejected",
        "reason_code": "benchmark_not_tradeable",
        "detail": "benchmarks are never held",
        "fill": None,
        "realised": None,
    }
    json.dumps([done, refused])


def test_monitor_closes_long_and_short_at_the_check_price_t_mon_1() -> None:
    """T-MON-1: every 15 minutes; long at/below, short at/above, closed there with the fee."""
    assert list(check_times(10, 3_700, PRESET)) == [900, 1_800, 2_700, 3_600]
    book = play_attempt(
        _answer(
            _open("ETH", invalidation_price=99),
            _open("SOL", action="open_short", invalidation_price=101),
        ),
        _book(),
        _market(),
        PRESET,
    ).book
    tradeable = frozenset({"ETHUSDT", "SOLUSDT"})
    same, none, marks = run_check(
        book, 900, {"ETHUSDT": usd(100), "SOLUSDT": usd(100)}, tradeable, 0, PRESET
    )
    assert none == ()
    assert marks == ()
    assert same == book
    after, closes, _ = run_check(
        book, 1_800, {"ETHUSDT": usd(99), "SOLUSDT": usd(101)}, tradeable, 0, PRESET
    )
    assert [(c.symbol, c.fill.price, c.fill.side) for c in closes] == [
        ("ETHUSDT", usd(99), Side.SELL),
        ("SOLUSDT", usd(101), Side.COVER),
    ]
    for close in closes:
        assert close.fill.fee == -(-close.fill.value * 1_000 // MICRO)
        assert close.realised < 0
    assert after.portfolio.positions == {}
    assert after.closed["ETHUSDT"] == Closed(1, 0)
    closed_market, _, _ = run_check(
        book, 1_800, {"ETHUSDT": usd(50), "SOLUSDT": usd(100)}, frozenset({"SOLUSDT"}), 0, PRESET
    )
    assert "ETHUSDT" in closed_market.portfolio.positions


def test_monitor_marks_a_break_seen_while_closed_and_closes_at_the_open_t_mon_1() -> None:
    """T-MON-1: a stock broken while NYSE is closed is marked, then closed at the first open check.

    The close is at that check's price whichever side of the level it is on, with
    the fee; the mark rides on the book (its payload round-trips), survives a
    partial close, and a break seen while the market is open closes at once.
    """
    book = play_attempt(
        _answer(
            _open("AAPL", invalidation_price=99),
            _open("BRK.B", action="open_short", invalidation_price=101),
        ),
        _book(),
        _market(),
        PRESET,
    ).book
    closed: frozenset[str] = frozenset()
    open_ = frozenset({"AAPL", "BRK-B"})
    # the session's close breaks both levels after the bell: marked, nothing closed
    marked, closes, marks = run_check(
        book, 75_600, {"AAPL": usd(98), "BRK-B": usd(102)}, closed, 0, PRESET
    )
    assert closes == ()
    assert [(m.symbol, m.broken) for m in marks] == [
        ("AAPL", Broken(75_600, usd(99), usd(98))),
        ("BRK-B", Broken(75_600, usd(101), usd(102))),
    ]
    assert marked.portfolio == book.portfolio
    assert marked.theses["AAPL"].broken == Broken(75_600, usd(99), usd(98))
    assert book_from_payload(book_payload(marked)) == marked
    assert book_payload(book)["theses"]["AAPL"].keys() == {  # type: ignore[index]
        "direction", "basis", "invalidation_price", "thesis", "invalidation", "confidence",
        "opened_cycle",
    }  # fmt: skip
    # later closed checks: marked once only, even where the price moved back
    again, closes, marks = run_check(
        marked, 76_500, {"AAPL": usd(100), "BRK-B": usd(100)}, closed, 0, PRESET
    )
    assert (again, closes, marks) == (marked, (), ())
    # a partial close keeps the mark
    half = play_attempt(
        _answer({"action": "close", "symbol": "AAPL", "percent_of_position": 50}),
        again,
        _market(cycle=1),
        PRESET,
    ).book
    assert half.theses["AAPL"].broken == Broken(75_600, usd(99), usd(98))
    held = {s: abs(half.portfolio.qty(s)) for s in ("AAPL", "BRK-B")}
    assert 0 < held["AAPL"] < abs(again.portfolio.qty("AAPL"))
    # the first open check: both closed there, back on the right side of their levels
    after, closes, marks = run_check(
        half, 138_600, {"AAPL": usd(100), "BRK-B": usd(100)}, open_, 1, PRESET
    )
    assert marks == ()
    assert [(c.symbol, c.time, c.level, c.fill.price, c.fill.qty, c.fill.side) for c in closes] == [
        ("AAPL", 138_600, usd(99), usd(100), held["AAPL"], Side.SELL),
        ("BRK-B", 138_600, usd(101), usd(100), held["BRK-B"], Side.COVER),
    ]
    assert [c.broken for c in closes] == [
        Broken(75_600, usd(99), usd(98)),
        Broken(75_600, usd(101), usd(102)),
    ]
    for close in closes:
        assert close.fill.fee == -(-close.fill.value * 1_000 // MICRO)
    assert after.portfolio.positions == {}
    assert after.theses == {}
    assert after.closed == {"AAPL": Closed(1, 1), "BRK-B": Closed(-1, 1)}
    # a break seen while the market is open closes at once, unmarked
    now, closes, marks = run_check(
        book, 138_600, {"AAPL": usd(99), "BRK-B": usd(100)}, open_, 0, PRESET
    )
    assert marks == ()
    assert [(c.symbol, c.fill.price, c.broken) for c in closes] == [("AAPL", usd(99), None)]
    assert "AAPL" not in now.portfolio.positions
    assert "BRK-B" in now.portfolio.positions


def test_season_length_t_sea_1() -> None:
    """T-SEA-1: a season is 28 daily cycles; the preset refuses a non-positive length."""
    assert PRESET.season_days == 28
    try:
        ThesisPreset(season_days=0)
    except ValueError:
        pass
    else:
        raise AssertionError("a zero-day season was accepted")


def test_metrics_counts_and_verdicts_t_sco_1_st_1_st_2() -> None:
    """T-SCO-1, ST-1, ST-2: six metrics with their counts; verdicts against cash and SPY."""
    start = usd(10_000)
    equity = [usd(10_100), usd(9_900), usd(10_300), usd(10_200)]
    gross = [usd(5_050), usd(0), usd(10_300), usd(5_100)]
    m = metrics(start, equity, gross, [usd(10), -usd(5), usd(1)], trades=5, decisions=7)
    assert m.ret == Fraction(2, 100)
    assert m.max_drawdown == Fraction(200, 10_100)
    assert m.win_rate == Fraction(2, 3)
    assert m.closed_trades == 3
    assert m.exposure == (Fraction(1, 2) + 0 + 1 + Fraction(1, 2)) / 4
    assert m.sharpe is not None
    assert m.sortino is not None
    report = m.to_report()
    assert report["return"] == "2.00"
    assert report["win_rate"] == "66.67"
    assert report["trades"] == 5
    assert report["decisions"] == 7
    flat = metrics(start, [start] * 4, [0] * 4, [], trades=0, decisions=4)
    placed = rank({"b": flat, "a": m})
    assert [(p.row, p.rank, p.unranked) for p in placed] == [
        ("a", 1, None),
        ("b", None, "no_position"),
    ]
    v = verdicts(equity, [usd(500), usd(505), usd(500), usd(510), usd(511)], start)
    assert v.steps == 4
    assert v.vs_cash is not Outcome.TOO_FEW
    assert v.vs_spy is not Outcome.TOO_FEW
    assert verdicts(equity[:1], [usd(1), usd(2)], start).vs_cash is Outcome.TOO_FEW


def test_inverse_answer_swaps_sides_and_mirrors_levels_t_agt_1() -> None:
    """T-AGT-1: the mirror opens the other side, its level as far on its own losing side."""
    prices = {"ETH": "100", "SOL": "50"}
    source = _answer(
        _open("ETH", invalidation_price=90),
        _open("SOL", action="open_short", invalidation_price=120),
        {"action": "close", "symbol": "AAPL"},
        {"action": "hold", "symbol": "BRK.B", "invalidation_price": 80},
    )
    mirrored = invert_thesis_answer(source, prices)
    assert mirrored is not None
    decisions = json.loads(mirrored)["decisions"]
    assert [(d["action"], d["symbol"], d.get("invalidation_price")) for d in decisions] == [
        ("open_short", "ETH", "110.000000"),
        ("open_long", "SOL", "25.000000"),  # 2 x 50 - 120 is not a price: half the price
        ("close", "AAPL", None),
        ("hold", "BRK.B", 80),  # a hold refers to the mirror's own position: untouched
    ]
    out = play_attempt(mirrored, _book(), _market(ETHUSDT=100, SOLUSDT=50), PRESET)
    assert [r.executed for r in out.results[:2]] == [True, True]
    assert out.book.portfolio.qty("ETHUSDT") < 0 < out.book.portfolio.qty("SOLUSDT")
    back = invert_thesis_answer(invert_thesis_answer(_answer(_open("ETH")), prices) or "", prices)
    assert back is not None
    assert json.loads(back)["decisions"][0]["action"] == "open_long"
    assert Decimal(json.loads(back)["decisions"][0]["invalidation_price"]) == 90
    fenced = invert_thesis_answer("```json\n" + _answer(_open("ETH")) + "\n```", prices)
    assert fenced is not None
    assert "open_short" in fenced
    assert invert_thesis_answer("I will not trade.", prices) is None
    assert invert_thesis_answer('{"decisions": "none"}', prices) is None
