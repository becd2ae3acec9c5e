"""Validation and execution of one attempt's decisions (SPEC T-CYC-7, T-CYC-8, T-ACT-1..6).

Each decision is checked in order against the book as it stands after the
decisions before it: a tradeable universe asset (not a benchmark; a stock only
while NYSE is open), valid sizing, the confidence gate, the invalidation side,
the churn and no-reopen rules, at most 10 positions. A valid trade executes
through the one engine (``sim.execute_order``) at the current price with the
0.1% fee, rounded up to the micro-dollar; shorts are collateralised by cash
(their proceeds credited to cash) and gross exposure after an open or add may
not exceed equity (a leverage cap of 1). Sizing is a percent of equity: the
dollars include the fee (less 100 micro-dollars for rounding), and the
quantity rounds down to a millionth of a unit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from tradeleague.formats.thesis.answer import (
    ACTIONS,
    Action,
    Answer,
    AnswerReject,
    Item,
    Reason,
    parse_answer,
)
from tradeleague.formats.thesis.book import Book, Closed, Thesis
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import AssetClass, Universe, normalise
from tradeleague.money import MICRO, Qty, Rounding, Usd, div_round
from tradeleague.sim import Fill, Order, OrderRules, PpmFee, Rejection, Side, execute_order
from tradeleague.untrusted import is_blank

__all__ = ["Attempt", "Market", "Result", "close_position", "order_rules", "play_attempt"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Market:
    """What the rules see at one instant.

    Attributes
    ----------
    cycle
        The cycle's number in the season (0 first).
    prices
        Latest observable price per provider symbol.
    eligible
        Provider symbols that may be opened (the screen's eligibility).
    stocks_open
        Whether NYSE is open at the instant (T-UNI-3).
    universe
        The symbols.
    """

    cycle: int
    prices: Mapping[str, Usd]
    eligible: frozenset[str]
    stocks_open: bool
    universe: Universe


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """One decision's outcome (T-CYC-10): executed with its fill, or rejected with a code."""

    action: str
    symbol: str
    executed: bool
    reason: Reason | None = None
    detail: str = ""
    fill: Fill | None = None
    realised: int | None = None
    item: Item | None = None

    def to_payload(self) -> dict[str, object]:
        """Return the canonical JSON form (micro-unit integers as strings)."""
        return {
            "action": self.action,
            "symbol": self.symbol,
            "status": "executed" if self.executed else "rejected",
            "reason_code": None if self.reason is None else self.reason.value,
            "detail": self.detail,
            "fill": None if self.fill is None else self.fill.to_payload(),
            "realised": None if self.realised is None else str(self.realised),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
    """One attempt's outcome: the answer's rejection or its decisions, and the book after."""

    answer: Answer | None
    answer_reject: AnswerReject | None
    results: tuple[Result, ...]
    book: Book
    acted: frozenset[str]

    @property
    def needs_correction(self) -> bool:
        """Return whether the correction round applies (T-CYC-9)."""
        return self.answer_reject is not None or any(not r.executed for r in self.results)


_SLACK = 100
"""Micro-dollars kept back from each open's dollars, for valuation rounding (ours)."""


def order_rules(preset: ThesisPreset) -> OrderRules:
    """Return the engine's rules for this format: shorts allowed, no leverage, the fee."""
    return OrderRules(allow_short=True, leverage_cap=1, fee=PpmFee(preset.fee_ppm))


def _reject(item: Item, shown: str, reason: Reason, detail: str) -> Result:
    return Result(
        action=item.action, symbol=shown, executed=False, reason=reason, detail=detail, item=item
    )


def _size(book: Book, market: Market, pct: int, price: int, preset: ThesisPreset) -> Qty:
    equity = book.portfolio.equity(market.prices)
    dollars = max(0, equity * pct // 10_000 - _SLACK)
    return Qty(div_round(dollars * MICRO * MICRO, price * (MICRO + preset.fee_ppm), Rounding.DOWN))


def _open_fields(item: Item, preset: ThesisPreset) -> tuple[Reason, str] | tuple[int, int, int]:
    pct = item.percent_of_equity
    if pct is None or not preset.min_percent * 100 <= pct <= preset.max_percent * 100:
        return (
            Reason.BAD_SIZING,
            f"percent_of_equity must be {preset.min_percent} to {preset.max_percent}",
        )
    if is_blank(item.thesis) or is_blank(item.invalidation):  # invisible text is no thesis
        return Reason.MISSING_FIELD, "thesis and invalidation are required to open or add"
    level, confidence = item.invalidation_price, item.confidence
    if level is None:
        return Reason.MISSING_FIELD, "invalidation_price is required to open or add"
    if confidence is None:
        return Reason.MISSING_FIELD, "confidence is required to open or add"
    low, high = preset.min_confidence_pct, preset.max_confidence_pct
    if not low <= confidence <= high:
        return Reason.CONFIDENCE_GATE, f"confidence must be {low / 100:.2f} to {high / 100:.2f}"
    return pct, level, confidence


def _side_ok(direction: int, level: int, price: int) -> bool:
    return level < price if direction > 0 else level > price


def _execute(book: Book, market: Market, order: Order, preset: ThesisPreset) -> Fill | Rejection:
    outcome = execute_order(book.portfolio, order, market.prices, order_rules(preset))
    return outcome if isinstance(outcome, Rejection) else outcome.fill


def close_position(
    book: Book, symbol: str, qty: Qty, price: Usd, cycle: int, preset: ThesisPreset
) -> tuple[Book, Fill, int]:
    """Close ``qty`` of a held position at ``price`` with the fee; return book, fill, realised P&L.

    A whole close records the direction and ``cycle`` for the no-reopen rule.
    """
    held = book.portfolio.qty(symbol)
    thesis = book.theses[symbol]
    side = Side.SELL if held > 0 else Side.COVER
    fill = Fill.at(symbol, side, qty, price)
    fill = replace(fill, fee=PpmFee(preset.fee_ppm).fee(symbol, side, fill.value))
    share = div_round(thesis.basis * qty, abs(held), Rounding.DOWN)
    realised = fill.cash_delta - share
    portfolio = book.portfolio.apply(fill)
    theses = dict(book.theses)
    closed = dict(book.closed)
    if portfolio.qty(symbol):
        theses[symbol] = replace(thesis, basis=thesis.basis - share)
    else:
        del theses[symbol]
        closed[symbol] = Closed(thesis.direction, cycle)
    return Book(portfolio, theses, closed), fill, realised


def _decide(
    item: Item, book: Book, market: Market, acted: frozenset[str], preset: ThesisPreset
) -> tuple[Result, Book]:
    shown = item.symbol
    if item.problem is not None:
        return _reject(item, shown, item.problem.reason, item.problem.detail), book
    if item.action not in ACTIONS:
        return _reject(item, shown, Reason.BAD_ACTION, f"unknown action {item.action!r}"), book
    action = Action(item.action)
    universe = market.universe
    symbol = universe.provider_symbol(item.symbol)
    if symbol is None:
        return _reject(item, shown, Reason.UNKNOWN_SYMBOL, "not in the universe"), book
    shown = normalise(symbol)
    if symbol in universe.benchmarks:
        return _reject(item, shown, Reason.BENCHMARK, "benchmarks are never held"), book
    if universe.asset_class(symbol) is AssetClass.STOCK and not market.stocks_open:
        return _reject(item, shown, Reason.MARKET_CLOSED, "the US market is closed"), book
    if preset.churn and symbol in acted:
        return _reject(
            item, shown, Reason.DUPLICATE_SYMBOL, "one action per symbol per cycle"
        ), book
    price = market.prices.get(symbol)
    held = book.portfolio.qty(symbol)
    thesis = book.theses.get(symbol)
    if action in (Action.OPEN_LONG, Action.OPEN_SHORT):
        direction = 1 if action is Action.OPEN_LONG else -1
        if held:
            return _reject(item, shown, Reason.ALREADY_OPEN, "a position is already open"), book
        if symbol not in market.eligible:
            return _reject(item, shown, Reason.NOT_ELIGIBLE, "not eligible to open"), book
    else:
        if not held or thesis is None:
            return _reject(item, shown, Reason.NO_POSITION, "no position is held"), book
        direction = thesis.direction
    if price is None:
        return _reject(item, shown, Reason.NO_PRICE, "no current price"), book
    if action is Action.HOLD:
        level = item.invalidation_price
        if level is None:
            return Result(action=action, symbol=shown, executed=True, item=item), book
        if not _side_ok(direction, level, price):
            return _reject(item, shown, Reason.INVALIDATION_SIDE, "level on the wrong side"), book
        moved = replace(thesis, invalidation_price=level) if thesis is not None else None
        theses = {**book.theses, symbol: moved} if moved is not None else book.theses
        return Result(action=action, symbol=shown, executed=True, item=item), Book(
            book.portfolio, theses, book.closed
        )
    if action is Action.CLOSE and thesis is not None:
        if preset.churn and thesis.opened_cycle == market.cycle:
            return _reject(item, shown, Reason.CLOSED_SAME_CYCLE, "opened this cycle"), book
        pct = 10_000 if item.percent_of_position is None else item.percent_of_position
        if not 100 <= pct <= 10_000:
            return _reject(
                item, shown, Reason.BAD_PERCENT_OF_POSITION, "percent_of_position must be 1 to 100"
            ), book
        qty = Qty(abs(held) if pct == 10_000 else abs(held) * pct // 10_000)
        if qty <= 0:
            return _reject(item, shown, Reason.TOO_SMALL, "nothing to close"), book
        after, fill, realised = close_position(book, symbol, qty, price, market.cycle, preset)
        return Result(
            action=action, symbol=shown, executed=True, fill=fill, realised=realised, item=item
        ), after
    fields = _open_fields(item, preset)
    if isinstance(fields[0], Reason):
        return _reject(item, shown, fields[0], str(fields[1])), book
    pct, level, confidence = (int(v) for v in fields)
    if not _side_ok(direction, level, price):
        where = "below" if direction > 0 else "above"
        return _reject(
            item, shown, Reason.INVALIDATION_SIDE, f"invalidation_price must be {where} the price"
        ), book
    if action is Action.ADD:
        if book.unrealised(symbol, price) <= 0:
            return _reject(item, shown, Reason.ADD_NOT_IN_PROFIT, "add only to a winner"), book
    else:
        recent = book.closed.get(symbol)
        if (
            preset.no_reopen
            and recent is not None
            and recent.direction == direction
            and market.cycle - recent.cycle <= 1
        ):
            return _reject(item, shown, Reason.NO_REOPEN, "closed last cycle"), book
        if len(book.portfolio.positions) >= preset.max_positions:
            return _reject(item, shown, Reason.MAX_POSITIONS, "too many positions"), book
    qty = _size(book, market, pct, price, preset)
    if qty <= 0:
        return _reject(item, shown, Reason.TOO_SMALL, "the size rounds to zero"), book
    side = Side.BUY if direction > 0 else Side.SHORT
    outcome = _execute(book, market, Order(symbol, side, qty), preset)
    if isinstance(outcome, Rejection):
        return _reject(item, shown, Reason.OVER_BUDGET, "exposure would exceed equity"), book
    portfolio = book.portfolio.apply(outcome)
    paid = -outcome.cash_delta
    if thesis is not None:
        new = replace(
            thesis,
            basis=thesis.basis + paid,
            invalidation_price=level,
            thesis=item.thesis,
            invalidation=item.invalidation,
            confidence=confidence,
        )
    else:
        new = Thesis(
            direction=direction,
            basis=paid,
            invalidation_price=level,
            thesis=item.thesis,
            invalidation=item.invalidation,
            confidence=confidence,
            opened_cycle=market.cycle,
        )
    book = Book(portfolio, {**book.theses, symbol: new}, book.closed)
    return Result(action=action, symbol=shown, executed=True, fill=outcome, item=item), book


def play_attempt(
    text: str | None,
    book: Book,
    market: Market,
    preset: ThesisPreset,
    acted: frozenset[str] = frozenset(),
    read: Callable[[Answer], Answer] | None = None,
) -> Attempt:
    """Parse, validate and execute one answer's decisions in order (T-CYC-7, T-CYC-8).

    Parameters
    ----------
    text
        The raw answer.
    book
        The model's book before the attempt.
    market
        Prices, eligibility and whether stocks trade now.
    preset
        The rules' numbers.
    acted
        Provider symbols already acted on this cycle (by the first attempt).
    read
        Maps the parsed answer before its decisions are validated (a masked
        season's pseudonyms and shown prices back to the real ones).
    """
    parsed = parse_answer(text, preset)
    if isinstance(parsed, AnswerReject):
        return Attempt(answer=None, answer_reject=parsed, results=(), book=book, acted=acted)
    if read is not None:
        parsed = read(parsed)
    results: list[Result] = []
    for item in parsed.items:
        result, book = _decide(item, book, market, acted, preset)
        results.append(result)
        symbol = market.universe.provider_symbol(item.symbol)
        if result.executed and symbol is not None:
            acted = acted | {symbol}
    return Attempt(
        answer=parsed, answer_reject=None, results=tuple(results), book=book, acted=acted
    )
