"""The direction arena's rounds, live and replayed, every step recorded (SPEC D-RND, D-TRD).

One round, in order (the same code live and in replay; ``pacing`` holds the
only differences):

1. At the open, read the last ``candles`` one-minute candles once; the entry
   price is the close of the candle that ended at the open (for a sub-minute
   drill round, of the last candle closed less than a minute before the
   open). Without it the round is void (``no_market_data``). Record ``RoundStarted`` with the asset,
   the entry price, the candles and the exact expiry (D-RND-1).
2. Ask every model the identical prompt with identical parameters through one
   code path (D-RND-2, D-ASK-1, D-ASK-2, C-2).
3. Take each answer as it arrives (``ModelCalled`` for every call record):
   outside the window it is a ``timeout``; unreadable, ``invalid``; readable,
   a ``DecisionMade`` (its text stored as it came, C-4); with under 30 s left,
   ``late``; otherwise the trade is placed at once with the broker, its
   duration running to the round's expiry (``TradePlaced``), or refused
   (``trade_rejected`` with the broker's code).
4. At expiry, collect the broker's close events (``TradeSettled``); a trade
   without one by the grace is ``unsettled``. If no trade settled the round is
   void. The up/down label comes from the verdicts (D-TRD-5).
5. Read every balance back from the broker (``RoundFinished``), never adding
   anything up locally (D-TRD-3), and end the season if an account is below
   the floor (D-SEA-1).

Each trade is placed as its own task the moment its answer is read, so a slow
broker delays no other answer (D-RND-2); the late check (D-RND-4) uses the
answer's arrival, ``ask + latency``, not the moment the broker confirms.

Faults (DESIGN principle 7: one failure never takes the others down):

* An agent that raises instead of answering is skipped with ``league_fault``
  (``skips.LEAGUE_FAULT``, the league's fault, not the model's, C-7); the
  others carry on. ``ReplayMissed`` (a replay that cannot answer from the
  record) stays loud: it propagates, and a round not yet written leaves
  nothing behind.
* A broker that raises on ``place`` gives ``trade_rejected`` with code
  ``broker_error`` and the error as its message.
* Any other failure of the round itself voids the round (``RoundVoided``
  with reason ``league_fault`` and the error), voids its placed trades with
  the broker (stakes back) and still finishes it (``RoundFinished``), so no
  round is left open; outstanding answer and placement tasks are cancelled.

Rounds may overlap live (a round settles while the next one opens): every
round keeps its own event buffer and the season it opened in. A season that
must end (length or floor) while a round of it is still in flight ends when
the last such round finishes; a round opening meanwhile is void
(``season_ending``), so nothing trades across a season's end (C-8).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.llm import ReplayMissed
from tradeleague.broker.base import BinaryOrder, Broker, Placed, Rejected
from tradeleague.clock import Clock
from tradeleague.errors import ConfigError
from tradeleague.events import Event, EventKind, utc_iso
from tradeleague.feeds.candles.base import CandleSource
from tradeleague.formats.direction.answer import Answer, parse_answer
from tradeleague.formats.direction.candle import MINUTE, Candle
from tradeleague.formats.direction.labels import market_label
from tradeleague.formats.direction.ledger import (
    ROUND_VOIDED,
    TRADE_PLACED,
    VISITOR_CALL_LOGGED,
    Entrant,
)
from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
from tradeleague.formats.direction.prompt import answer_schema, build_messages
from tradeleague.formats.direction.season import SeasonEnd, season_end, season_id
from tradeleague.formats.direction.skips import LEAGUE_FAULT, SkipReason
from tradeleague.formats.direction.timing import (
    AnswerTiming,
    RoundTimes,
    answer_timing,
    round_times,
)
from tradeleague.league.direction.pacing import Pacing
from tradeleague.llm.records import CallKey
from tradeleague.llm.types import Outcome
from tradeleague.money import Usd
from tradeleague.sim import Direction
from tradeleague.store import Store

__all__ = ["BROKER_ERROR", "SEASON_ENDING", "Contestant", "DirectionArena", "DirectionView"]

BROKER_ERROR = "broker_error"
"""The ``trade_rejected`` code of a broker that raised instead of answering."""

SEASON_ENDING = "season_ending"
"""The void reason of a round opened while its season waits for a round in flight."""

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class Contestant:
    """A roster entry: how it is published, and the agent that answers for it."""

    entrant: Entrant
    agent: Agent


@dataclass(frozen=True, slots=True, kw_only=True)
class DirectionView:
    """The round's facts for rule-based agents: exactly what the prompt says."""

    asset: str
    entry_price: Usd
    candles: tuple[Candle, ...]
    expiry: datetime


@dataclass(slots=True)
class _Round:
    times: RoundTimes
    season: str
    ask_at: datetime | None = None
    entry: Usd | None = None
    started: bool = False
    written: bool = False
    trades: dict[str, str] = field(default_factory=dict)
    visitors: list[tuple[str, str, datetime]] = field(default_factory=list)
    pending: list[Event] = field(default_factory=list)
    placing: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def asked(self) -> datetime:
        if self.ask_at is None:
            raise RuntimeError(f"round {self.times.round_id} has not asked yet")
        return self.ask_at

    @property
    def price(self) -> Usd:
        if self.entry is None:
            raise RuntimeError(f"round {self.times.round_id} has no entry price")
        return self.entry


@dataclass(frozen=True, slots=True)
class _AgentFault:
    error: Exception


class DirectionArena:
    """Runs direction rounds against a candle source and a broker, recording to a store.

    Parameters
    ----------
    store
        Where every event goes (stream ``stream``).
    roster
        The models, in a fixed order (the order calls are handed out).
    candles, broker, clock, pacing
        The market data, the broker, the clock and the live/replay pacing.
    preset
        The arena's rules.
    stream
        The event stream of this arena.
    """

    def __init__(
        self,
        *,
        store: Store,
        roster: Sequence[Contestant],
        candles: CandleSource,
        broker: Broker,
        clock: Clock,
        pacing: Pacing,
        preset: DirectionPreset | None = None,
        stream: str = FORMAT,
    ) -> None:
        names = [c.entrant.name for c in roster]
        if not names or len(set(names)) != len(names):
            raise ConfigError("a direction roster needs at least one model, names unique")
        self.store = store
        self.roster = tuple(roster)
        self.candles = candles
        self.broker = broker
        self.clock = clock
        self.pacing = pacing
        self.preset = preset or DirectionPreset()
        self.stream = stream
        self.season: str | None = None
        self._season_number = 0
        self._season_started: datetime | None = None
        self._visitors: dict[str, Entrant] = {}
        self._open: _Round | None = None
        self._in_flight: dict[str, int] = {}
        self._ending: SeasonEnd | None = None

    # -- events ------------------------------------------------------------------

    def _record(self, kind: str, payload: dict[str, Any]) -> None:
        """Append a season-level event at once (no round buffer holds it)."""
        body = {"season": self.season, **payload}
        self.store.append([Event(self.stream, kind, body, self.clock.now())])

    def _emit(self, live: _Round, kind: str, payload: dict[str, Any]) -> None:
        body = {"season": live.season, **payload}
        live.pending.append(Event(self.stream, kind, body, self.clock.now()))

    def _flush(self, live: _Round) -> None:
        if live.pending:
            self.store.append(live.pending)
            live.pending = []
            live.written = True

    # -- seasons -----------------------------------------------------------------

    async def start_season(self) -> str:
        """Open a new season: every account (re)set to the starting balance (D-SEA-1)."""
        self._season_number += 1
        self.season = season_id(self._season_number)
        self._season_started = self.clock.now()
        self._visitors = {}
        self._ending = None
        p = self.preset
        for c in self.roster:
            await self.broker.open_account(c.entrant.name, p.start_balance)
        self._record(
            EventKind.SEASON_STARTED,
            {
                "format": FORMAT,
                "started_at": utc_iso(self._season_started),
                "start_balance": str(int(p.start_balance)),
                "stake": str(int(p.stake)),
                "payout_ppm": p.payout_ppm,
                "floor": str(int(p.season_floor)),
                "length_s": int(p.season_length.total_seconds()),
                "prompt_version": p.prompt_version,
                "scoring_version": p.scoring_version,
                "roster": [c.entrant.to_payload() for c in self.roster],
            },
        )
        return self.season

    async def end_season(self, reason: SeasonEnd) -> None:
        """Close the current season with its final balances (C-8)."""
        balances = {n: str(int(b)) for n, b in (await self._balances()).items()}
        self._record(
            EventKind.SEASON_ENDED,
            {"reason": reason.value, "ended_at": utc_iso(self.clock.now()), "balances": balances},
        )
        self.season = None
        self._ending = None

    async def _balances(self) -> dict[str, Usd]:
        names = [c.entrant.name for c in self.roster] + list(self._visitors)
        return {n: await self.broker.balance(n) for n in names}

    async def _end_if_due(self) -> None:
        season = self.season
        if season is not None and self._ending is not None and not self._in_flight.get(season):
            await self.end_season(self._ending)

    # -- visitors ----------------------------------------------------------------

    def visitor_call(self, visitor: str, direction: str, at: datetime | None = None) -> None:
        """Log a visitor's own call on the open round; placed like a model's (D-PUB-2).

        Raises
        ------
        ConfigError
            If no round is open, the direction is not ``up``/``down``, or the
            visitor already called this round.
        """
        if direction not in ("up", "down"):
            raise ConfigError("a call is exactly 'up' or 'down'")
        if self._open is None:
            raise ConfigError("no round is open for calls")
        name = f"visitor:{visitor}"
        if any(v == name for v, _, _ in self._open.visitors):
            raise ConfigError(f"{visitor} already called this round")
        self._open.visitors.append((name, direction, at or self.clock.now()))

    async def _place_visitors(self, live: _Round) -> None:
        queued, live.visitors = live.visitors, []
        for name, direction, at in queued:
            if name not in self._visitors:
                self._visitors[name] = Entrant(
                    name=name, provider="visitor", tier="visitor", model="human", kind="visitor"
                )
                await self.broker.open_account(name, self.preset.start_balance)
            entrant = self._visitors[name]
            self._emit(
                live,
                VISITOR_CALL_LOGGED,
                {"round": live.times.round_id, "agent": name, "entrant": entrant.to_payload()},
            )
            latency = int((at - live.asked) / timedelta(milliseconds=1))
            answer = Answer(direction="up" if direction == "up" else "down", rationale="")
            await self._decide(live, name, answer, at, latency, text=None)

    # -- one round ---------------------------------------------------------------

    async def run_round(self, open_at: datetime) -> str:
        """Run the round opening at ``open_at`` to its end; return its id.

        Raises
        ------
        ReplayMissed
            If a replayed agent cannot answer from the record (nothing of a
            round not yet written is left behind).
        """
        p = self.preset
        times = round_times(open_at, p)
        await self.clock.sleep_until(open_at)
        started = self._season_started
        if (
            self.season is not None
            and started is not None
            and self._ending is None
            and season_end(p, started, open_at, {}) is SeasonEnd.LENGTH
        ):
            self._ending = SeasonEnd.LENGTH
        await self._end_if_due()
        season = self.season if self.season is not None else await self.start_season()
        live = _Round(times, season)
        self._in_flight[live.season] = self._in_flight.get(live.season, 0) + 1
        try:
            if self._ending is not None:
                await self._void_at_open(live, SEASON_ENDING)
            else:
                await self._guarded_play(live)
        finally:
            self._in_flight[live.season] -= 1
            if self._open is live:
                self._open = None
        await self._end_if_due()
        return times.round_id

    async def _guarded_play(self, live: _Round) -> None:
        try:
            await self._play(live)
        except (ReplayMissed, asyncio.CancelledError):
            await self._cancel_tasks(live)
            if not live.written:
                live.pending.clear()  # nothing of this round reached the store
            else:
                with contextlib.suppress(Exception):
                    await self._void_after_fault(live, "the round was stopped")
            raise
        except Exception as exc:
            await self._cancel_tasks(live)
            _log.exception("round %s failed (league fault); voided", live.times.round_id)
            await self._void_after_fault(live, f"{type(exc).__name__}: {exc}")

    async def _cancel_tasks(self, live: _Round) -> None:
        for task in live.placing:
            task.cancel()
        await asyncio.gather(*live.placing, return_exceptions=True)
        live.placing = []

    async def _void_after_fault(self, live: _Round, detail: str) -> None:
        rid = live.times.round_id
        if not live.started:
            self._started(live, ())
        if live.trades:
            await self.broker.void(list(live.trades))
        self._emit(
            live,
            ROUND_VOIDED,
            {"round": rid, "reason": LEAGUE_FAULT, "detail": f"league fault: {detail}"},
        )
        await self._finish(live, [], void=True)

    async def _void_at_open(self, live: _Round, reason: str) -> None:
        self._started(live, ())
        self._emit(live, ROUND_VOIDED, {"round": live.times.round_id, "reason": reason})
        await self._finish(live, [], void=True)

    def _started(self, live: _Round, history: Sequence[Candle]) -> None:
        p, times = self.preset, live.times
        live.started = True
        ask_at = live.ask_at or self.clock.now()
        self._emit(
            live,
            EventKind.ROUND_STARTED,
            {
                "round": times.round_id,
                "open_at": utc_iso(times.open_at),
                "expiry": utc_iso(times.expiry),
                "ask_at": utc_iso(ask_at),
                "asset": p.asset,
                "symbol": p.symbol,
                "entry_price": None if live.entry is None else str(int(live.entry)),
                "candles": [c.to_payload() for c in history],
                "stake": str(int(p.stake)),
                "participants": [c.entrant.name for c in self.roster],
                "prompt_version": p.prompt_version,
            },
        )

    async def _play(self, live: _Round) -> None:
        p, times = self.preset, live.times
        history = await self.candles.history(p.symbol, times.open_at, p.candles)
        live.entry = _price_at(history, times.open_at)
        await self.pacing.ask(times.open_at)
        live.ask_at = self.clock.now()
        self._started(live, history)
        if live.entry is None:
            self._emit(live, ROUND_VOIDED, {"round": times.round_id, "reason": "no_market_data"})
            await self._finish(live, [], void=True)
            return
        self._open = live
        if self.pacing.live:
            self._flush(live)
        try:
            await self._ask_all(live, history)
            await self._place_visitors(live)
        finally:
            if self._open is live:  # a late round may overlap the next one's open
                self._open = None
        await asyncio.gather(*live.placing)
        live.placing = []
        await self._settle(live)

    async def _ask_all(self, live: _Round, history: tuple[Candle, ...]) -> None:
        p = self.preset
        messages = build_messages(p, live.price, history)
        view = DirectionView(
            asset=p.asset, entry_price=live.price, candles=history, expiry=live.times.expiry
        )
        params = p.call_params()
        schema = answer_schema(p)
        faults: dict[int, _AgentFault] = {}
        asks = [
            _guarded(
                c.agent,
                Turn(
                    format=FORMAT,
                    key=CallKey(live.season, live.times.round_id, c.entrant.name, 0),
                    messages=messages,
                    params=params,
                    json_schema=schema,
                    view=view,
                ),
                faults,
                index,
            )
            for index, c in enumerate(self.roster)
        ]
        async with contextlib.aclosing(self.pacing.replies(asks, p.window)) as replies:
            async for index, reply in replies:
                name = self.roster[index].entrant.name
                fault = faults.get(index)
                if fault is not None:
                    self._agent_fault(live, name, fault.error)
                else:
                    await self._on_reply(live, name, reply)
                await self._place_visitors(live)
                if self.pacing.live:
                    self._flush(live)

    def _agent_fault(self, live: _Round, name: str, error: Exception) -> None:
        _log.error("agent %s raised in round %s (league fault)", name, live.times.round_id)
        detail = f"league fault, not the model's: the agent raised {type(error).__name__}: {error}"
        self._skip(live, name, LEAGUE_FAULT, detail)

    async def _on_reply(self, live: _Round, name: str, reply: AgentReply) -> None:
        rid = live.times.round_id
        for record in reply.records:
            self._emit(
                live,
                EventKind.MODEL_CALLED,
                {"round": rid, "agent": name, "record": record.to_payload()},
            )
        answered = reply.outcome is Outcome.ANSWERED
        timing = answer_timing(
            live.times, live.asked, reply.latency_ms if answered else None, self.preset
        )
        if timing is AnswerTiming.TIMEOUT:
            detail = reply.outcome.value if not answered else "answered after the window"
            self._skip(live, name, SkipReason.TIMEOUT, detail, latency_ms=reply.latency_ms)
            return
        answered_at = live.asked + timedelta(milliseconds=reply.latency_ms)
        await self.clock.sleep_until(answered_at)
        parsed = parse_answer(reply.text, max_rationale=self.preset.max_rationale)
        if not isinstance(parsed, Answer):
            self._skip(
                live, name, SkipReason.INVALID, parsed.reason.value, text=reply.text,
                latency_ms=reply.latency_ms,
            )  # fmt: skip
            return
        await self._decide(live, name, parsed, answered_at, reply.latency_ms, text=reply.text)

    async def _decide(
        self,
        live: _Round,
        name: str,
        answer: Answer,
        answered_at: datetime,
        latency_ms: int,
        *,
        text: str | None,
    ) -> None:
        rid, p = live.times.round_id, self.preset
        self._emit(
            live,
            EventKind.DECISION_MADE,
            {
                "round": rid,
                "agent": name,
                "direction": answer.direction,
                "rationale": answer.rationale,
                "rationale_truncated": answer.rationale_truncated,
                "answered_at": utc_iso(answered_at),
                "latency_ms": latency_ms,
                "text": text,
            },
        )
        # D-RND-4 is read at the answer's arrival, not when the broker confirms.
        if live.times.expiry - answered_at < p.late_cutoff:
            left = (live.times.expiry - answered_at).total_seconds()
            self._skip(live, name, SkipReason.LATE, f"{left:.3f} s left before expiry")
            return
        order = BinaryOrder(
            account=name,
            kind=Direction.from_answer(answer.direction),
            symbol=p.symbol,
            stake=p.stake,
            strike=live.price,
            placed_at=max(answered_at, self.clock.now()),
            expiry=live.times.expiry,
            client_ref=f"{rid}/{name}",
        )
        live.placing.append(asyncio.create_task(self._place(live, name, order)))

    async def _place(self, live: _Round, name: str, order: BinaryOrder) -> None:
        """Place one trade with the broker: its own task, so no answer waits on another's."""
        rid = live.times.round_id
        try:
            result = await self.broker.place(order)
        except Exception as exc:
            _log.error("broker raised placing %s/%s", rid, name)
            message = f"the broker raised {type(exc).__name__}: {exc}"
            self._skip(live, name, SkipReason.TRADE_REJECTED, BROKER_ERROR, message=message)
            return
        if isinstance(result, Rejected):
            self._skip(live, name, SkipReason.TRADE_REJECTED, result.code, message=result.message)
            return
        live.trades[result.trade_id] = name
        self._emit(live, TRADE_PLACED, _placed_payload(rid, name, result))
        if self.pacing.live:
            self._flush(live)

    def _skip(self, live: _Round, name: str, reason: str, detail: str, **extra: Any) -> None:
        payload = {"round": live.times.round_id, "agent": name, "reason": reason, "detail": detail}
        self._emit(live, EventKind.TURN_SKIPPED, payload | extra)

    async def _settle(self, live: _Round) -> None:
        p = self.preset
        deadline = live.times.expiry + p.settle_grace
        ids = list(live.trades)
        closes = await self.pacing.closes(self.broker, ids, live.times.expiry, deadline)
        rid = live.times.round_id
        seen: set[str] = set()
        for close in closes:
            seen.add(close.trade_id)
            self._emit(
                live,
                EventKind.TRADE_SETTLED,
                {
                    "round": rid,
                    "agent": live.trades[close.trade_id],
                    "trade_id": close.trade_id,
                    "kind": close.kind.value,
                    "outcome": close.outcome.value,
                    "entry_price": str(int(close.entry_price)),
                    "exit_price": str(int(close.exit_price)),
                    "pnl": str(int(close.pnl)),
                    "payout_ppm": close.payout_ppm,
                    "closed_at": utc_iso(close.closed_at),
                },
            )
        missing = [t for t in ids if t not in seen]
        for trade_id in missing:
            detail = f"no close event for {trade_id} within {p.settle_grace} of expiry: voided"
            self._skip(live, live.trades[trade_id], SkipReason.UNSETTLED, detail)
        if missing:
            await self.broker.void(missing)  # D-SKP-1: voided, stake returned, never guessed
        if not closes:
            self._emit(live, ROUND_VOIDED, {"round": rid, "reason": "no_trade_completed"})
        label = market_label((c.kind, c.outcome) for c in closes).value
        await self._finish(live, closes, void=not closes, label=label)

    async def _finish(
        self, live: _Round, closes: Sequence[object], *, void: bool, label: str = "none"
    ) -> None:
        times = live.times
        balances = await self._balances()
        self._emit(
            live,
            EventKind.ROUND_FINISHED,
            {
                "round": times.round_id,
                "void": void,
                "label": label,
                "settled": len(closes),
                "balances": {n: str(int(b)) for n, b in balances.items()},
            },
        )
        self._flush(live)
        models = {c.entrant.name: balances[c.entrant.name] for c in self.roster}
        started = self._season_started or times.open_at
        if (
            live.season == self.season
            and self._ending is None
            and season_end(self.preset, started, times.open_at, models) is SeasonEnd.FLOOR
        ):
            self._ending = SeasonEnd.FLOOR


async def _guarded(
    agent: Agent, turn: Turn, faults: dict[int, _AgentFault], index: int
) -> AgentReply:
    """Ask ``agent``; an error other than ``ReplayMissed`` becomes a recorded fault."""
    try:
        return await agent.answer(turn)
    except ReplayMissed:
        raise
    except Exception as exc:
        faults[index] = _AgentFault(exc)
        return AgentReply(outcome=Outcome.PROVIDER_ERROR, latency_ms=0, error=str(exc))


def _price_at(history: Sequence[Candle], moment: datetime) -> Usd | None:
    """Return the close of the last candle closed less than a minute before ``moment``.

    On the minute grid this is exactly the candle that ended at ``moment``; a
    gap there means no price (``no_market_data``), never an older one.
    """
    if history and moment - history[-1].close_time < MINUTE:
        return history[-1].close
    return None


def _placed_payload(rid: str, name: str, placed: Placed) -> dict[str, Any]:
    order = placed.order
    return {
        "round": rid,
        "agent": name,
        "trade_id": placed.trade_id,
        "kind": order.kind.value,
        "stake": str(int(order.stake)),
        "strike": str(int(order.strike)),
        "placed_at": utc_iso(order.placed_at),
        "expiry": utc_iso(order.expiry),
        "duration_ms": order.duration_ms,
        "payout_ppm": placed.payout_ppm,
    }
