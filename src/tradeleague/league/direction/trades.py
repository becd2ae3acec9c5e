"""Answers to trades: placing each at once, settling them at expiry (SPEC D-RND, D-TRD, D-SKP).

Each answer is taken as it arrives (``ModelCalled`` for every call record):
outside the window it is a ``timeout``; unreadable, ``invalid``; readable, a
``DecisionMade`` (its text stored as it came, C-4); with under 30 s left,
``late``; otherwise the trade is placed at once with the broker, its duration
running to the round's expiry (``TradePlaced``), or refused
(``trade_rejected`` with the broker's code; ``broker_error`` when the broker
raised).

Each trade is placed as its own task the moment its answer is read, so a slow
broker delays no other answer (D-RND-2); the late check (D-RND-4) uses the
answer's arrival, ``ask + latency``, not the moment the broker confirms.

At expiry the broker's close events are collected (``TradeSettled``); a trade
without one by the grace is ``unsettled`` and voided with the broker, its
stake returned, never guessed (D-SKP-1). The up/down label comes from the
verdicts (D-TRD-5).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from tradeleague.agents.base import AgentReply
from tradeleague.broker.base import BinaryOrder, Broker, CloseEvent, Placed, Rejected
from tradeleague.calls import Outcome
from tradeleague.clock import Clock
from tradeleague.events import EventKind, model_called_payload, utc_iso
from tradeleague.formats.direction.answer import Answer, parse_answer
from tradeleague.formats.direction.labels import market_label
from tradeleague.formats.direction.ledger import ROUND_VOIDED, TRADE_PLACED
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.formats.direction.skips import SkipReason
from tradeleague.formats.direction.timing import AnswerTiming, answer_timing
from tradeleague.league.direction.round_state import OpenRound, RoundLog
from tradeleague.league.pacing import Pacing
from tradeleague.sim import Direction

__all__ = ["BROKER_ERROR", "Settled", "TradeDesk"]

BROKER_ERROR = "broker_error"
"""The ``trade_rejected`` code of a broker that raised instead of answering."""

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Settled:
    """A round's settlement: the broker's close events and the round's market label."""

    closes: tuple[CloseEvent, ...]
    label: str


class TradeDesk:
    """Turn a round's answers into trades with the broker, and settle them.

    Parameters
    ----------
    log
        Where the round's events go.
    broker, clock, pacing
        The broker, the clock and the live/replay pacing.
    preset
        The arena's rules.
    """

    def __init__(
        self,
        *,
        log: RoundLog,
        broker: Broker,
        clock: Clock,
        pacing: Pacing,
        preset: DirectionPreset,
    ) -> None:
        self.log = log
        self.broker = broker
        self.clock = clock
        self.pacing = pacing
        self.preset = preset

    async def take(self, live: OpenRound, name: str, reply: AgentReply) -> None:
        """Record ``name``'s reply and act on it: a skip, or a decision and its trade."""
        rid = live.round_id
        for record in reply.records:
            self.log.emit(
                live,
                EventKind.MODEL_CALLED,
                model_called_payload(agent=name, round=rid, record=record.to_payload()),
            )
        answered = reply.outcome is Outcome.ANSWERED
        timing = answer_timing(
            live.times, live.asked, reply.latency_ms if answered else None, self.preset
        )
        if timing is AnswerTiming.TIMEOUT:
            detail = reply.outcome.value if not answered else "answered after the window"
            self.log.skip(live, name, SkipReason.TIMEOUT, detail, latency_ms=reply.latency_ms)
            return
        answered_at = live.asked + timedelta(milliseconds=reply.latency_ms)
        await self.clock.sleep_until(answered_at)
        parsed = parse_answer(reply.text, max_rationale=self.preset.max_rationale)
        if not isinstance(parsed, Answer):
            self.log.skip(
                live, name, SkipReason.INVALID, parsed.reason.value, text=reply.text,
                latency_ms=reply.latency_ms,
            )  # fmt: skip
            return
        await self.decide(live, name, parsed, answered_at, reply.latency_ms, text=reply.text)

    async def decide(
        self,
        live: OpenRound,
        name: str,
        answer: Answer,
        answered_at: datetime,
        latency_ms: int,
        *,
        text: str | None,
    ) -> None:
        """Record ``name``'s decision; unless late (D-RND-4), start placing its trade."""
        rid, p = live.round_id, self.preset
        self.log.emit(
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
            self.log.skip(live, name, SkipReason.LATE, f"{left:.3f} s left before expiry")
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

    async def _place(self, live: OpenRound, name: str, order: BinaryOrder) -> None:
        """Place one trade with the broker: its own task, so no answer waits on another's."""
        rid = live.round_id
        try:
            result = await self.broker.place(order)
        except Exception as exc:
            _log.error("broker raised placing %s/%s", rid, name)
            message = f"the broker raised {type(exc).__name__}: {exc}"
            self.log.skip(live, name, SkipReason.TRADE_REJECTED, BROKER_ERROR, message=message)
            return
        if isinstance(result, Rejected):
            self.log.skip(
                live, name, SkipReason.TRADE_REJECTED, result.code, message=result.message
            )
            return
        live.trades[result.trade_id] = name
        self.log.emit(live, TRADE_PLACED, _placed_payload(rid, name, result))
        if self.pacing.live:
            self.log.flush(live)

    async def placed(self, live: OpenRound) -> None:
        """Wait for every placement of ``live`` still running."""
        await asyncio.gather(*live.placing)
        live.placing = []

    async def cancel(self, live: OpenRound) -> None:
        """Cancel every placement of ``live`` still running and wait for them to stop."""
        for task in live.placing:
            task.cancel()
        await asyncio.gather(*live.placing, return_exceptions=True)
        live.placing = []

    async def settle(self, live: OpenRound) -> Settled:
        """Collect the closes by the grace; void the trades without one (D-SKP-1, D-TRD-5).

        A round where no trade settled is recorded void (``no_trade_completed``).
        """
        p = self.preset
        deadline = live.times.expiry + p.settle_grace
        ids = list(live.trades)
        closes = await self.pacing.closes(self.broker, ids, live.times.expiry, deadline)
        rid = live.round_id
        seen: set[str] = set()
        for close in closes:
            seen.add(close.trade_id)
            agent = live.trades[close.trade_id]
            self.log.emit(live, EventKind.TRADE_SETTLED, _settled_payload(rid, agent, close))
        missing = [t for t in ids if t not in seen]
        for trade_id in missing:
            detail = f"no close event for {trade_id} within {p.settle_grace} of expiry: voided"
            self.log.skip(live, live.trades[trade_id], SkipReason.UNSETTLED, detail)
        if missing:
            await self.broker.void(missing)  # D-SKP-1: voided, stake returned, never guessed
        if not closes:
            self.log.emit(live, ROUND_VOIDED, {"round": rid, "reason": "no_trade_completed"})
        label = market_label((c.kind, c.outcome) for c in closes).value
        return Settled(tuple(closes), label)


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


def _settled_payload(rid: str, agent: str, close: CloseEvent) -> dict[str, Any]:
    return {
        "round": rid,
        "agent": agent,
        "trade_id": close.trade_id,
        "kind": close.kind.value,
        "outcome": close.outcome.value,
        "entry_price": str(int(close.entry_price)),
        "exit_price": str(int(close.exit_price)),
        "pnl": str(int(close.pnl)),
        "payout_ppm": close.payout_ppm,
        "closed_at": utc_iso(close.closed_at),
    }
