"""Benchmark tradeleague's engine against vectorbt, backtesting.py, backtrader and a plain loop.

One strategy, the same seeded synthetic data, every engine in one run, one table.

Strategy (per symbol, each symbol a sleeve of 1,000,000 cash): at the close
of bar t >= 30, if SMA(close, 10) > SMA(close, 30) and flat, buy
floor(0.95 x sleeve cash / close[t]) shares; if not and long, sell all.
Orders fill at open[t+1]; commission 0.1% of notional; no slippage. Final
equity = cash + positions at the last close. The *dense* case trades every
bar instead (flat -> buy, long -> sell), so every symbol is rebalanced on
every bar and each engine fills an order per symbol-bar.

tradeleague runs all symbols in one shared account; its indicators are
vectorised with numpy and the engine is called only on fills. The peers are
single-asset engines (vectorbt: one column per symbol without shared cash;
the plain loop: one sleeve per symbol), so each symbol runs as its own 1,000,000 account and
the results are summed: identical to the shared account because the sleeves
are independent (a sleeve's size depends only on its own cash, and no sleeve
can run short of cash since it buys with 95% of it).

Prices are whole cents, so SMA10 - SMA30 is an exact multiple of 1/30 cent;
the peers compare it with half of that step so float round-off cannot flip a
tie (tradeleague compares 3 x sum10 with sum30 in exact integers).

The engines must agree on the number of fills and on final equity (relative
difference below 1e-8); otherwise this script exits non-zero.

Run: ``make bench`` (needs ``.venv-bench`` with vectorbt, backtesting and backtrader), or
``python bench/sim_vs_peers.py --quick`` for a small run.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tradeleague.money import MICRO, Qty, Usd
from tradeleague.sim import Executed, Order, OrderRules, Portfolio, PpmFee, Side, execute_order
from tradeleague.sim.batch import FILLED, compiled_available, execute_batch

SLEEVE_CASH = 1_000_000
FAST, SLOW, FIRST_BAR = 10, 30, 30
COMMISSION = 0.001
TIE_EPS = 0.5 / SLOW / 100  # half the SMA-difference step, in dollars
REL_TOL = 1e-8
TARGET_RATE = 1_000_000.0

IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class Market:
    """Seeded synthetic daily bars for ``n`` symbols, prices in whole cents."""

    open: IntArray
    high: IntArray
    low: IntArray
    close: IntArray

    @property
    def shape(self) -> tuple[int, int]:
        n, m = self.close.shape
        return int(n), int(m)


@dataclass(frozen=True)
class Result:
    """What one engine produced on one case."""

    engine: str
    fills: int
    equity: float
    seconds: float


def make_market(n: int, m: int, seed: int) -> Market:
    """Return positive OHLC bars: a log-normal walk with small overnight gaps."""
    rng = np.random.default_rng(seed)
    start = rng.uniform(20.0, 200.0, size=(n, 1))
    log_ret = rng.normal(0.0002, 0.015, size=(n, m))
    close_f = start * np.exp(np.cumsum(log_ret, axis=1))
    prev = np.concatenate([start, close_f[:, :-1]], axis=1)
    open_f = prev * np.exp(rng.normal(0.0, 0.003, size=(n, m)))
    close = np.maximum(np.rint(close_f * 100), 1).astype(np.int64)
    open_ = np.maximum(np.rint(open_f * 100), 1).astype(np.int64)
    wick = np.abs(rng.normal(0.0, 0.004, size=(n, m)))
    high = np.maximum(np.rint(np.maximum(open_, close) * (1 + wick)), np.maximum(open_, close))
    low = np.maximum(np.minimum(np.rint(np.minimum(open_, close) * (1 - wick)), 1), 1)
    low = np.minimum(low, np.minimum(open_, close))
    return Market(open_, high.astype(np.int64), low.astype(np.int64), close)


# --------------------------------------------------------------------------- tradeleague


def _event_mask(close: IntArray, dense: bool) -> NDArray[np.bool_]:
    """Return, per symbol and bar, whether the strategy sends an order at that close.

    Orders at the last close would fill after the data ends, so none is sent.
    """
    n, m = close.shape
    mask = np.zeros((n, m), dtype=bool)
    if dense:
        mask[:, FIRST_BAR : m - 1] = True
        return mask
    csum = np.zeros((n, m + 1), dtype=np.int64)
    np.cumsum(close, axis=1, out=csum[:, 1:])
    t = np.arange(FIRST_BAR, m - 1)
    sum_fast = csum[:, t + 1] - csum[:, t + 1 - FAST]
    sum_slow = csum[:, t + 1] - csum[:, t + 1 - SLOW]
    want_long = (SLOW // FAST) * sum_fast > sum_slow
    before = np.concatenate([np.zeros((n, 1), dtype=bool), want_long[:, :-1]], axis=1)
    mask[:, FIRST_BAR : m - 1] = want_long != before
    return mask


def run_tradeleague(market: Market, dense: bool) -> Result:
    """Run the strategy on one shared tradeleague account."""
    t0 = time.perf_counter()
    n, m = market.shape
    symbols = [f"S{i:03d}" for i in range(n)]
    scale = MICRO // 100
    # Orders are processed bar by bar, symbols in order, as one account would see them.
    bars, syms = np.nonzero(_event_mask(market.close, dense).T)
    signal_close = (market.close[syms, bars] * scale).tolist()
    next_open = (market.open[syms, bars + 1] * scale).tolist()
    rules = OrderRules(fee=PpmFee(1_000))
    portfolio = Portfolio.open(Usd(n * SLEEVE_CASH * MICRO))
    sleeve = [SLEEVE_CASH * MICRO] * n
    fills = 0
    for s, close, open_ in zip(syms.tolist(), signal_close, next_open, strict=True):
        symbol = symbols[s]
        held = portfolio.positions.get(symbol)
        if held:
            order = Order(symbol, Side.SELL, held)
        else:
            shares = (95 * sleeve[s]) // (100 * close)
            if shares <= 0:
                raise SystemExit(f"{symbol}: sleeve too small to buy a share")
            order = Order(symbol, Side.BUY, Qty(shares * MICRO))
        outcome = execute_order(portfolio, order, {symbol: Usd(open_)}, rules)
        if not isinstance(outcome, Executed):
            raise SystemExit(f"tradeleague rejected an order: {outcome.detail}")
        portfolio = outcome.portfolio
        sleeve[s] += outcome.fill.cash_delta
        if sleeve[s] < 0:
            raise SystemExit(f"{symbol}: sleeve cash went negative")
        fills += 1
    last = {symbols[s]: Usd(int(market.close[s, m - 1]) * scale) for s in range(n)}
    equity = portfolio.equity(last)
    seconds = time.perf_counter() - t0
    return Result("tradeleague", fills, equity / MICRO, seconds)


def run_tradeleague_batch(market: Market, dense: bool) -> Result:
    """Run the strategy through the batch fill kernel, one call per wave of orders.

    A symbol's k-th order depends only on its own earlier fills (its sleeve),
    so the k-th orders of every symbol go to the kernel together; no sleeve
    can run short, so the shared account fills them exactly as bar order would.
    """
    t0 = time.perf_counter()
    n, m = market.shape
    symbols = [f"S{i:03d}" for i in range(n)]
    scale = MICRO // 100
    mask = _event_mask(market.close, dense)
    per_symbol = [np.flatnonzero(mask[s]) for s in range(n)]
    waves = max((len(b) for b in per_symbol), default=0)
    padded = np.full((n, waves), -1, dtype=np.int64)
    for s, b in enumerate(per_symbol):
        padded[s, : len(b)] = b
    rules = OrderRules(fee=PpmFee(1_000))
    portfolio = Portfolio.open(Usd(n * SLEEVE_CASH * MICRO))
    sleeve = np.full(n, SLEEVE_CASH * MICRO, dtype=np.int64)
    held = np.zeros(n, dtype=np.int64)
    fills = 0
    for k in range(waves):
        syms = np.flatnonzero(padded[:, k] >= 0)
        bars = padded[syms, k]
        close = market.close[syms, bars] * scale
        open_ = market.open[syms, bars + 1] * scale
        buying = k % 2 == 0
        qty = (95 * sleeve[syms]) // (100 * close) * MICRO if buying else held[syms]
        side = np.full(len(syms), 0 if buying else 1, dtype=np.int64)
        out = execute_batch(portfolio, symbols, syms.astype(np.int64), side, qty, open_, rules)
        if (out.status != FILLED).any():
            raise SystemExit("tradeleague (batch) rejected an order")
        portfolio = out.portfolio
        if buying:
            sleeve[syms] -= out.values + out.fees + out.slippage
            held[syms] = qty
        else:
            sleeve[syms] += out.values - out.fees - out.slippage
            held[syms] = 0
        if (sleeve < 0).any():
            raise SystemExit("a sleeve's cash went negative")
        fills += len(syms)
    last = {symbols[s]: Usd(int(market.close[s, m - 1]) * scale) for s in range(n)}
    equity = portfolio.equity(last)
    name = "tl batch (numba)" if compiled_available() else "tl batch (py)"
    return Result(name, fills, equity / MICRO, time.perf_counter() - t0)


# --------------------------------------------------------------------------- peers


def _frame(market: Market, s: int) -> Any:
    import pandas as pd

    _, m = market.shape
    return pd.DataFrame(
        {
            "Open": market.open[s] / 100,
            "High": market.high[s] / 100,
            "Low": market.low[s] / 100,
            "Close": market.close[s] / 100,
            "Volume": np.full(m, 1_000_000.0),
        },
        index=pd.date_range("1990-01-01", periods=m, freq="D"),
    )


def run_plain_loop(market: Market, dense: bool) -> Result:
    """Run the strategy as a plain Python loop in floats, one sleeve per symbol, summed.

    What a quick script would do: running sums for the averages, a fill at the
    next open with the commission taken from cash. No validation, no ledger.
    """
    n, m = market.shape
    opens = (market.open / 100).tolist()
    closes = (market.close / 100).tolist()
    t0 = time.perf_counter()
    fills, equity = 0, 0.0
    for s in range(n):
        close, open_ = closes[s], opens[s]
        cash, shares = float(SLEEVE_CASH), 0
        sum_fast = sum(close[FIRST_BAR + 1 - FAST : FIRST_BAR + 1])
        sum_slow = sum(close[FIRST_BAR + 1 - SLOW : FIRST_BAR + 1])
        for t in range(FIRST_BAR, m - 1):
            if t > FIRST_BAR:
                sum_fast += close[t] - close[t - FAST]
                sum_slow += close[t] - close[t - SLOW]
            long = shares > 0
            want = (not long) if dense else sum_fast / FAST - sum_slow / SLOW > TIE_EPS
            if want and not long:
                shares = math.floor(0.95 * cash / close[t])
                cash -= shares * open_[t + 1] * (1 + COMMISSION)
                fills += 1
            elif long and not want:
                cash += shares * open_[t + 1] * (1 - COMMISSION)
                shares = 0
                fills += 1
        equity += cash + shares * close[m - 1]
    return Result("plain loop", fills, equity, time.perf_counter() - t0)


_VBT_ORDER_FUNC: Any = None


def _vbt_order_func() -> Any:
    """Compile (once) the numba order function vectorbt calls for every symbol-bar."""
    global _VBT_ORDER_FUNC  # one compiled function per process
    if _VBT_ORDER_FUNC is None:
        from numba import njit
        from vectorbt.portfolio import nb as vbt_nb
        from vectorbt.portfolio.enums import NoOrder

        @njit
        def order_func(c: Any, want: Any, signal_close: Any, open_: Any, dense: bool) -> Any:
            t = c.i - 1  # the signal is taken at the previous close, filled at this open
            if t < FIRST_BAR:
                return NoOrder
            long = c.position_now > 0
            wanted = (not long) if dense else want[t, c.col]
            if wanted and not long:
                size = np.floor(0.95 * c.cash_now / signal_close[t, c.col])
                return vbt_nb.order_nb(size=size, price=open_[c.i, c.col], fees=COMMISSION)
            if long and not wanted:
                return vbt_nb.order_nb(
                    size=-c.position_now, price=open_[c.i, c.col], fees=COMMISSION
                )
            return NoOrder

        _VBT_ORDER_FUNC = order_func
    return _VBT_ORDER_FUNC


def run_vectorbt(market: Market, dense: bool) -> Result:
    """Run the strategy on vectorbt (numba), one column and one account per symbol, summed.

    The order size depends on the sleeve's cash, so this is vectorbt's path for
    path-dependent strategies: ``Portfolio.from_order_func`` with a compiled
    order function (the averages are computed vectorised beforehand).
    """
    import vectorbt as vbt

    close = np.ascontiguousarray((market.close / 100).T)
    open_ = np.ascontiguousarray((market.open / 100).T)
    n, m = market.shape
    t0 = time.perf_counter()
    fast = np.full((m, n), np.nan)
    slow = np.full((m, n), np.nan)
    csum = np.vstack([np.zeros((1, n)), np.cumsum(close, axis=0)])
    fast[FAST - 1 :] = (csum[FAST:] - csum[:-FAST]) / FAST
    slow[SLOW - 1 :] = (csum[SLOW:] - csum[:-SLOW]) / SLOW
    want = (fast - slow) > TIE_EPS
    portfolio = vbt.Portfolio.from_order_func(
        close,
        _vbt_order_func(),
        want,
        close,
        open_,
        dense,
        init_cash=float(SLEEVE_CASH),
        cash_sharing=False,
    )
    equity = float(np.sum(portfolio.final_value()))
    fills = int(np.sum(portfolio.orders.count()))
    return Result("vectorbt", fills, equity, time.perf_counter() - t0)


def run_backtesting(market: Market, dense: bool) -> Result:
    """Run the strategy on backtesting.py, one account per symbol, summed."""
    import pandas as pd
    from backtesting import Backtest, Strategy

    def sma(values: Any, period: int) -> Any:
        return pd.Series(values).rolling(period).mean().to_numpy()

    class SmaCross(Strategy):  # type: ignore[misc]
        def init(self) -> None:
            self.fast = self.I(sma, self.data.Close, FAST)
            self.slow = self.I(sma, self.data.Close, SLOW)

        def next(self) -> None:
            if len(self.data) - 1 < FIRST_BAR:
                return
            long = self.position.size > 0
            want = (not long) if dense else bool(self.fast[-1] - self.slow[-1] > TIE_EPS)
            if want and not long:
                self.buy(size=math.floor(0.95 * self.equity / self.data.Close[-1]))
            elif long and not want:
                self.position.close()

    n, _ = market.shape
    frames = [_frame(market, s) for s in range(n)]
    t0 = time.perf_counter()
    fills, equity = 0, 0.0
    for df in frames:
        bt = Backtest(df, SmaCross, cash=SLEEVE_CASH, commission=COMMISSION)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stats = bt.run()
        broker = stats["_strategy"]._broker
        fills += 2 * len(broker.closed_trades) + len(broker.trades)
        equity += float(stats["Equity Final [$]"])
    return Result("backtesting.py", fills, equity, time.perf_counter() - t0)


def run_backtrader(market: Market, dense: bool) -> Result:
    """Run the strategy on backtrader, one account per symbol, summed."""
    import backtrader as bt

    class SmaCross(bt.Strategy):  # type: ignore[misc]
        def __init__(self) -> None:
            self.fast = bt.ind.SMA(self.data.close, period=FAST)
            self.slow = bt.ind.SMA(self.data.close, period=SLOW)
            self.fills = 0

        def notify_order(self, order: Any) -> None:
            if order.status == order.Completed:
                self.fills += 1

        def next(self) -> None:
            if len(self) - 1 < FIRST_BAR:
                return
            long = self.position.size > 0
            want = (not long) if dense else bool(self.fast[0] - self.slow[0] > TIE_EPS)
            if want and not long:
                self.buy(size=math.floor(0.95 * self.broker.getcash() / self.data.close[0]))
            elif long and not want:
                self.close()

    n, _ = market.shape
    frames = [_frame(market, s) for s in range(n)]
    t0 = time.perf_counter()
    fills, equity = 0, 0.0
    for df in frames:
        cerebro = bt.Cerebro(stdstats=False)
        cerebro.adddata(bt.feeds.PandasData(dataname=df))
        cerebro.addstrategy(SmaCross)
        cerebro.broker.setcash(SLEEVE_CASH)
        cerebro.broker.setcommission(commission=COMMISSION)
        (strategy,) = cerebro.run()
        fills += strategy.fills
        equity += float(cerebro.broker.getvalue())
    return Result("backtrader", fills, equity, time.perf_counter() - t0)


# --------------------------------------------------------------------------- driver

Runner = Callable[[Market, bool], Result]
ENGINES: dict[str, Runner] = {
    "tradeleague": run_tradeleague,
    "tradeleague-batch": run_tradeleague_batch,
    "plain-loop": run_plain_loop,
    "vectorbt": run_vectorbt,
    "backtesting.py": run_backtesting,
    "backtrader": run_backtrader,
}


@dataclass(frozen=True)
class Case:
    """One benchmark size and mode."""

    name: str
    n: int
    m: int
    dense: bool


FULL = (
    Case("sparse", 20, 2_000, False),
    Case("sparse", 50, 10_000, False),
    Case("dense", 20, 2_000, True),
)
QUICK = (Case("sparse", 5, 500, False), Case("dense", 5, 500, True))


def main(argv: list[str] | None = None) -> int:
    """Run the cases, print the table, and return non-zero on any disagreement."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    parser.add_argument("--seed", type=int, default=20_260_716)
    parser.add_argument(
        "--engines",
        default=",".join(ENGINES),
        help=f"comma-separated subset of {', '.join(ENGINES)}",
    )
    args = parser.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown or "tradeleague" not in engines:
        parser.error(f"engines must include tradeleague and be among {', '.join(ENGINES)}")
    os.environ.setdefault("TQDM_DISABLE", "1")
    cases = QUICK if args.quick else FULL
    header = (
        f"{'case':<22} {'engine':<18} {'fills':>8} {'final equity':>20} "
        f"{'seconds':>9} {'symbol-bars/s':>14} {'tl speed-up':>12}  agree"
    )
    print("Paper trading simulation. Not investment advice. No real orders are placed.")
    print(f"seed {args.seed}; commission {COMMISSION:.1%}; fills at next open; no slippage\n")
    print(header)
    print("-" * len(header))
    ok = True
    sparse_big_rate = None
    big_rates: dict[str, float] = {}
    if "tradeleague-batch" in engines:  # compile the kernel (numba) before anything is timed
        run_tradeleague_batch(make_market(2, 80, args.seed), dense=True)
    if "vectorbt" in engines:  # compile vectorbt's simulation and the order function
        run_vectorbt(make_market(2, 80, args.seed), dense=True)
    for case in cases:
        market = make_market(case.n, case.m, args.seed + case.n * 7 + case.m)
        bars = case.n * case.m
        label = f"{case.name} {case.n} x {case.m:,}"
        base: Result | None = None
        for engine in engines:
            result = ENGINES[engine](market, case.dense)
            rate = bars / result.seconds
            if not case.dense and case.n * case.m >= 500_000:
                big_rates[engine] = rate
            if base is None:
                base = result
                agree, speedup = "-", "1.0x"
                if not case.dense and case.n * case.m >= 500_000:
                    sparse_big_rate = rate
            else:
                rel = abs(result.equity - base.equity) / abs(base.equity)
                same = result.fills == base.fills and rel < REL_TOL
                ok = ok and same
                agree = f"{'yes' if same else 'NO'} (rel {rel:.1e})"
                speedup = f"{result.seconds / base.seconds:,.1f}x"
            print(
                f"{label:<22} {engine:<18} {result.fills:>8,} {result.equity:>20,.6f} "
                f"{result.seconds:>9.3f} {rate:>14,.0f} {speedup:>12}  {agree}"
            )
        print()
    if sparse_big_rate is not None:
        verdict = "meets" if sparse_big_rate >= TARGET_RATE else "MISSES"
        print(
            f"tradeleague sparse 50 x 10,000: {sparse_big_rate:,.0f} symbol-bars/s "
            f"({verdict} the {TARGET_RATE:,.0f}/s target)"
        )
    if "tradeleague-batch" in big_rates and "vectorbt" in big_rates:
        ratio = big_rates["tradeleague-batch"] / big_rates["vectorbt"]
        verdict = "meets" if ratio >= 1.0 else "MISSES"
        print(
            f"batch kernel sparse 50 x 10,000: {big_rates['tradeleague-batch']:,.0f} symbol-bars/s,"
            f" {ratio:.2f}x vectorbt's {big_rates['vectorbt']:,.0f} ({verdict} the target)"
        )
    if not ok:
        print("DISAGREEMENT: the engines differ in fills or final equity", file=sys.stderr)
        return 1
    print("All engines agree on the number of fills and on final equity (rel. diff < 1e-8).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
