"""One thesis cycle: the monitor since the last cycle, then the decisions (T-CYC-1..10, T-MON-1).

The monitor's checks in ``(previous cycle, this cycle]`` run first, so at the
cycle's own instant it closes broken positions before any decision. Then one
picture for everyone (screen, RSI, prices), recorded with the prices the
board's no-skill null reads (``NullPricesRead``), one prompt per model (its own
holdings added; while NYSE is closed its universe rows are the crypto and the
stocks it holds), every agent asked through ``pacing.turns`` at once, each
answer judged and executed in the order the turns end; the agents whose answer
or action was rejected get the one correction prompt, asked the same way, and
a second miss is final. The cycle's events come back as one list, appended in
one transaction by the caller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.calls import CallParams, Outcome
from tradeleague.events import Event, EventKind, model_called_payload, utc_iso
from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.baselines import ThesisView
from tradeleague.formats.thesis.book import Book, book_payload
from tradeleague.formats.thesis.execution import Attempt, Market, play_attempt
from tradeleague.formats.thesis.monitor import check_times, run_check
from tradeleague.formats.thesis.picture import MarketTape, Picture
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.prompt import (
    AssetView,
    Snapshot,
    correction_messages,
    cycle_messages,
)
from tradeleague.formats.thesis.screen import Scored
from tradeleague.formats.thesis.universe import AssetClass, normalise
from tradeleague.league.pacing import Pacing
from tradeleague.league.thesis.masking import (
    answer_reader,
    correction_shown,
    shown_asset,
    shown_snapshot,
    shown_view,
)
from tradeleague.league.thesis.null import null_prices_payload
from tradeleague.league.thesis.state import SeasonState
from tradeleague.league.turns import TakenTurn
from tradeleague.llm.records import CallKey
from tradeleague.money import micros_to_str
from tradeleague.sim.portfolio import position_value
from tradeleague.stats.rounding import round_half_up
from tradeleague.store.portfolio import account_opened, order_filled

__all__ = ["CycleConfig", "Entrant", "monitor_events", "play_cycle"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Entrant:
    """One agent of the roster: its spec, kind, whether it is agentic, and its first cycle."""

    name: str
    spec: str
    kind: str
    agentic: bool = False
    enters: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class CycleConfig:
    """A cycle's call parameters and hard deadline."""

    limit: timedelta = timedelta(seconds=120)
    params: CallParams = field(default_factory=CallParams)


def _iso(seconds: int) -> str:
    return utc_iso(datetime.fromtimestamp(seconds, UTC))


def _at(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _seconds(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp())


def monitor_events(
    state: SeasonState,
    tape: MarketTape,
    books: dict[str, Book],
    stream: str,
    after: int,
    until: int,
    preset: ThesisPreset,
) -> list[Event]:
    """Run the monitor's checks in ``(after, until]`` over ``books`` (updated in place).

    Every held position is checked at every check, market open or not (T-MON-1);
    a stock found broken while NYSE is closed gets an ``InvalidationBroken`` (its
    book carries the mark) and its ``PositionInvalidated`` at the first open check.
    """
    events: list[Event] = []
    cycle = state.last_index
    round_iso = _iso(after)
    universe = tape.universe
    for moment in check_times(after + 1, until + 1, preset):
        if not any(b.theses for b in books.values()):
            continue
        stocks_open: bool | None = None
        for name in sorted(books):
            book = books[name]
            if not book.theses:
                continue
            prices = {}
            for symbol in book.theses:
                price = tape.price_at(symbol, moment)
                if price is not None:
                    prices[symbol] = price
            if stocks_open is None:
                stocks_open = tape.calendar.is_open(_at(moment))
            tradeable = frozenset(
                s
                for s in book.theses
                if universe.asset_class(s) is AssetClass.CRYPTO or stocks_open
            )
            after_book, closes, breaks = run_check(book, moment, prices, tradeable, cycle, preset)
            at = _at(moment)
            for mark in breaks:
                events.append(
                    Event(
                        stream,
                        tev.INVALIDATION_BROKEN,
                        {
                            "agent": name,
                            "time": _iso(moment),
                            "symbol": normalise(mark.symbol),
                            "level": str(mark.broken.level),
                            "price": str(mark.broken.price),
                            "book": book_payload(after_book),
                        },
                        at,
                    )
                )
            for close in closes:
                events.append(
                    order_filled(
                        stream, name, close.fill, at, {"round": round_iso, "by": "monitor"}
                    )
                )
                payload: dict[str, object] = {
                    "agent": name,
                    "time": _iso(moment),
                    "symbol": normalise(close.symbol),
                    "level": str(close.level),
                    "price": str(close.fill.price),
                    "quantity": str(close.fill.qty),
                    "fee": str(close.fill.fee),
                    "realised": str(close.realised),
                    "book": book_payload(after_book),
                }
                if close.broken is not None:  # seen broken earlier, while it could not trade
                    payload["broken_time"] = _iso(close.broken.time)
                    payload["broken_price"] = str(close.broken.price)
                events.append(Event(stream, tev.POSITION_INVALIDATED, payload, at))
            books[name] = after_book
    return events


def _money(micros: int) -> str:
    return micros_to_str(micros)


def _detail_symbols(picture: Picture, held: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([*picture.screen.symbols, *sorted(held)]))


def _asset(picture: Picture, symbol: str, preset: ThesisPreset, full: bool) -> AssetView:
    price = picture.prices.get(symbol)
    candles: dict[str, list[list[object]]] = {}
    if full:
        for interval, closed in picture.closed[symbol].items():
            candles[interval] = [c.to_row() for c in closed[-preset.candles_shown :]]
    return AssetView(
        symbol=normalise(symbol),
        price="" if price is None else _money(price),
        change_1d=picture.change_1d(symbol),
        rsi=picture.rsi(symbol, preset) if full else {},
        candles=candles,
    )


def _summary(
    rows: Mapping[str, AssetView], tape: MarketTape, stocks_open: bool, book: Book
) -> list[AssetView]:
    """Return a model's universe rows: stocks only while NYSE is open, held ones always.

    T-UNI-3: stock rows appear only while the market is open; held stocks stay visible.
    """
    universe = tape.universe
    return [
        view
        for symbol, view in rows.items()
        if stocks_open
        or universe.asset_class(symbol) is AssetClass.CRYPTO
        or symbol in book.portfolio.positions
    ]


def _snapshot(book: Book, picture: Picture) -> Snapshot:
    prices = picture.prices
    rows: list[dict[str, object]] = []
    for symbol, qty in sorted(book.portfolio.positions.items()):
        thesis = book.theses.get(symbol)
        price = prices.get(symbol, 0)
        rows.append(
            {
                "symbol": normalise(symbol),
                "quantity": micros_to_str(qty),
                "price": _money(price),
                "value": _money(position_value(qty, price)),
                "unrealised_pnl": _money(book.unrealised(symbol, price)),
                "thesis": thesis.thesis if thesis else "",
                "invalidation": thesis.invalidation if thesis else "",
                "invalidation_price": _money(thesis.invalidation_price) if thesis else "",
                "confidence": f"{thesis.confidence / 100:.2f}" if thesis else "",
                "opened_cycle": thesis.opened_cycle if thesis else 0,
            }
        )
    return Snapshot(
        equity=_money(book.portfolio.equity(prices)),
        cash=_money(book.portfolio.cash),
        positions=rows,
    )


def _picture_payload(
    picture: Picture,
    books: Mapping[str, Book],
    index: int,
    round_iso: str,
    tape: MarketTape,
    preset: ThesisPreset,
) -> dict[str, object]:
    held = {s for b in books.values() for s in b.portfolio.positions}
    shown = list(dict.fromkeys([*picture.screen.symbols, *sorted(held), *tape.universe.benchmarks]))
    shown = [s for s in shown if s in picture.prices]

    def scored(rows: Sequence[Scored]) -> list[dict[str, object]]:
        return [
            {"symbol": normalise(r.symbol), "score": str(round_half_up(r.score, 2))} for r in rows
        ]

    return {
        "round": round_iso,
        "index": index,
        "stocks_open": picture.stocks_open,
        "screen": {
            "crypto": scored(picture.screen.crypto),
            "stocks": scored(picture.screen.stocks),
        },
        "rsi": {normalise(s): picture.rsi(s, preset) for s in shown},
        "prices": {normalise(s): _money(picture.prices[s]) for s in shown},
    }


def _judged(
    stream: str,
    at: datetime,
    round_iso: str,
    name: str,
    attempt_no: int,
    outcome: str,
    raw: str | None,
    attempt: Attempt | None,
    book: Book,
    picture: Picture,
    detail: str = "",
    steps: int | None = None,
) -> list[Event]:
    results = attempt.results if attempt is not None else ()
    decisions: list[dict[str, object]] = []
    for r in results:
        row = r.to_payload()
        item = r.item
        row.update(
            thesis=item.thesis if item else "",
            invalidation=item.invalidation if item else "",
            invalidation_price=None
            if item is None or item.invalidation_price is None
            else str(item.invalidation_price),
            confidence=None if item is None or item.confidence is None else item.confidence,
            rationale=item.rationale if item else "",
        )
        decisions.append(row)
    reject = attempt.answer_reject if attempt is not None else None
    payload: dict[str, object] = {
        "round": round_iso,
        "agent": name,
        "attempt": attempt_no,
        "outcome": outcome,
        "raw_answer": raw,
        "answer_reason": None if reject is None else reject.reason.value,
        "detail": reject.detail if reject is not None else detail,
        "reasoning": attempt.answer.reasoning
        if attempt is not None and attempt.answer is not None
        else None,
        "decisions": decisions,
        "equity": str(book.portfolio.equity(picture.prices)),
        "cash": str(book.portfolio.cash),
        "positions": {normalise(s): str(q) for s, q in sorted(book.portfolio.positions.items())},
        "book": book_payload(book),
    }
    if steps is not None:
        payload["steps"] = steps  # T-AGT-2: each step is a ModelCalled event before this one
    events = [
        order_filled(stream, name, r.fill, at, {"round": round_iso, "by": "decision"})
        for r in results
        if r.fill is not None
    ]
    events.append(Event(stream, tev.ATTEMPT_JUDGED, payload, at))
    return events


def _records(
    stream: str, at: datetime, round_iso: str, name: str, reply: AgentReply
) -> list[Event]:
    return [
        Event(
            stream,
            EventKind.MODEL_CALLED,
            model_called_payload(agent=name, round=round_iso, record=r.to_payload()),
            at,
        )
        for r in reply.records
    ]


def _steps(agent: Agent, taken: TakenTurn) -> int | None:
    if agent.kind != "tools" or taken.reply is None:
        return None
    return len(taken.reply.records)


def _text_of(taken: TakenTurn) -> tuple[str, str | None, str]:
    if taken.fault is not None:
        return "fault", None, taken.fault.detail
    reply = taken.reply
    assert reply is not None  # noqa: S101 - a taken turn holds a reply or a fault
    if reply.outcome is not Outcome.ANSWERED:
        return reply.outcome.value, reply.text, reply.error or reply.outcome.value
    return reply.outcome.value, reply.text, ""


async def play_cycle(
    state: SeasonState,
    tape: MarketTape,
    agents: Mapping[str, Agent],
    entrants: Sequence[Entrant],
    moment: int,
    index: int,
    pacing: Pacing,
    preset: ThesisPreset,
    config: CycleConfig,
) -> list[Event]:
    """Play cycle ``index`` at ``moment`` (epoch seconds) and return its events in order."""
    stream = tev.season_stream(state.season)
    at = _at(moment)
    round_iso = _iso(moment)
    books = {n: a.book for n, a in state.agents.items()}
    events: list[Event] = []
    if index > 0:
        # From the cycle before (a day earlier, unless a live host missed cycles in between).
        after = _seconds(state.last_cycle) if state.last_cycle else moment - 86_400
        events += monitor_events(state, tape, books, stream, after, moment, preset)
    first: set[str] = set()
    for e in entrants:
        # a live host down at an agent's cycle lets it in at the next one it plays
        if e.enters <= index and e.name not in books:
            events.append(
                Event(
                    stream,
                    tev.AGENT_ENTERED,
                    {
                        "agent": e.name,
                        "spec": e.spec,
                        "kind": e.kind,
                        "agentic": e.agentic,
                        "cycle": index,
                    },
                    at,
                )
            )
            events.append(account_opened(stream, e.name, preset.start_cash, at))
            books[e.name] = Book.open(preset.start_cash)
            first.add(e.name)
    picture = tape.picture(moment, preset)
    events.append(
        Event(
            stream,
            EventKind.ROUND_STARTED,
            _picture_payload(picture, books, index, round_iso, tape, preset),
            at,
        )
    )
    # ST-2: what the board's no-skill null reads here, so its line needs no tape
    previous = state.cycles.get(state.last_cycle) if state.last_cycle else None
    events.append(
        Event(
            stream,
            tev.NULL_PRICES_READ,
            null_prices_payload(tape, picture, index, previous, preset),
            at,
        )
    )
    market = Market(
        cycle=index,
        prices=picture.prices,
        eligible=picture.eligible,
        stocks_open=picture.stocks_open,
        universe=tape.universe,
    )
    names = [e.name for e in entrants if e.name in books and e.name in agents]
    table = state.mask
    universe = tape.universe

    def shown(symbol: str, full: bool) -> AssetView:
        view = _asset(picture, symbol, preset, full)
        if table is None:
            return view
        closed = (
            {i: c[-preset.candles_shown :] for i, c in picture.closed[symbol].items()}
            if full
            else {}
        )
        return shown_asset(table, symbol, picture.prices.get(symbol), closed, view)

    rows = {s: shown(s, False) for s in universe.tradeable}
    if table is not None:  # no real order shows through
        rows = dict(sorted(rows.items(), key=lambda item: item[1].symbol))
    benchmarks = [shown(s, True) for s in universe.benchmarks if s in picture.prices]
    asks: list[tuple[Agent, Turn]] = []
    for name in names:
        book = books[name]
        detailed = [
            shown(s, True)
            for s in _detail_symbols(picture, list(book.portfolio.positions))
            if s in picture.prices
        ]
        snapshot = _snapshot(book, picture)
        if table is not None:
            snapshot = replace(
                snapshot, positions=shown_snapshot(table, universe, snapshot.positions)
            )
        messages = cycle_messages(
            time=round_iso if table is None else table.when(at),
            detailed=detailed,
            benchmarks=benchmarks,
            summary=_summary(rows, tape, picture.stocks_open, book),
            snapshot=snapshot,
            preset=preset,
        )
        view = ThesisView(
            index=index,
            first=name in first,
            screened=[normalise(s) for s in picture.screen.symbols],
            crypto=frozenset(normalise(s) for s in tape.universe.crypto),
            prices={normalise(s): _money(p) for s, p in picture.prices.items()},
            positions={normalise(s): micros_to_str(q) for s, q in book.portfolio.positions.items()},
            stocks_open=picture.stocks_open,
        )
        if table is not None:
            view = shown_view(table, view, universe)
        turn = Turn(
            format=tev.FORMAT,
            key=CallKey(state.season, round_iso, name, 0),
            messages=messages,
            params=config.params,
            view=view,
        )
        asks.append((agents[name], turn))
    read = None if table is None else answer_reader(table, universe)
    correcting = None if table is None else correction_shown(table, universe)
    await pacing.ask(at)
    second: list[tuple[Agent, Turn]] = []
    firsts: dict[str, Attempt] = {}

    def judge(taken: TakenTurn, agent: Agent, name: str, attempt_no: int) -> Attempt | None:
        outcome, raw, detail = _text_of(taken)
        nonlocal events
        if taken.reply is not None:
            events += _records(stream, at, round_iso, name, taken.reply)
        steps = _steps(agent, taken)
        if outcome != Outcome.ANSWERED.value:
            events += _judged(
                stream, at, round_iso, name, attempt_no, outcome, raw, None, books[name],
                picture, detail, steps,
            )  # fmt: skip
            return None
        acted = firsts[name].acted if attempt_no == 2 else frozenset()
        attempt = play_attempt(raw, books[name], market, preset, acted, read)
        books[name] = attempt.book
        events += _judged(
            stream, at, round_iso, name, attempt_no, outcome, raw, attempt, attempt.book,
            picture, "", steps,
        )  # fmt: skip
        return attempt

    async for taken in pacing.turns(asks, config.limit):
        agent, turn = asks[taken.index]
        name = names[taken.index]
        attempt = judge(taken, agent, name, 1)
        if attempt is None or not attempt.needs_correction:
            continue
        firsts[name] = attempt
        budget = attempt.book.budget_left(picture.prices)
        raw = taken.reply.text if taken.reply is not None else None
        follow = correction_messages(
            turn.messages, raw or "", attempt.answer_reject, attempt.results, budget, correcting
        )
        used = len(taken.reply.records) if taken.reply is not None else 0
        key = CallKey(state.season, round_iso, name, max(1, used))  # after the first's steps
        second.append(
            (agent, Turn(format=tev.FORMAT, key=key, messages=follow, params=config.params,
                         view=turn.view))
        )  # fmt: skip
    if second:
        second_names = [t.key.agent for _, t in second]
        async for taken in pacing.turns(second, config.limit):
            judge(taken, second[taken.index][0], second_names[taken.index], 2)
    equity = {
        n: {
            "equity": str(b.portfolio.equity(picture.prices)),
            "gross": str(b.portfolio.notional(picture.prices)),
        }
        for n, b in sorted(books.items())
    }
    events.append(
        Event(
            stream,
            EventKind.ROUND_FINISHED,
            {"round": round_iso, "index": index, "equity": equity},
            at,
        )
    )
    return events
