"""The direction arena's rounds, live and replayed, every step recorded (SPEC D-RND, D-TRD).

One round, in order (the same code live and in replay; ``pacing`` holds the
only differences):

1. At the open, read the last ``candles`` one-minute candles once; the entry
   price is the close of the candle that ended at the open (for a sub-minute
   drill round, of the last candle closed less than a minute before the
   open). Without it the round is void (``no_market_data``). Record
   ``RoundStarted`` with the asset, the entry price, the candles and the exact
   expiry (D-RND-1).
2. Ask every model the identical prompt with identical parameters through one
   code path (D-RND-2, D-ASK-1, D-ASK-2, C-2).
3. Take each answer as it arrives and place its trade at once
   (``trades.TradeDesk``). Visitors' calls likewise (``visitors``): the site
   records them in the round's visitors stream, and the arena reads it after
   each answer and then until the calls close (D-RND-4; live every poll, in
   replay once) and places each like a model's answer.
4. At expiry, settle (``TradeDesk.settle``). If no trade settled the round is
   void.
5. Read every balance back from the broker (``RoundFinished``), never adding
   anything up locally (D-TRD-3), and end the season if an account is below
   the floor (D-SEA-1).

Faults (DESIGN principle 7, ``faults``): a raising agent is a ``league_fault``
skip; a raising broker on ``place`` is ``trade_rejected`` (``broker_error``);
any other failure of the round voids it (``RoundVoided``, ``league_fault``,
with the error), voids its placed trades with the broker (stakes back) and
still finishes it (``RoundFinished``), so no round is left open; outstanding
answer and placement tasks are cancelled. ``ReplayMissed`` stays loud: it
propagates, and a round not yet written leaves nothing behind.

Rounds may overlap live (a round settles while the next one opens): every
round keeps its own event buffer and the season it opened in
(``round_state``). A season that must end (length or floor) while a round of
it is still in flight ends when the last such round finishes; a round opening
meanwhile is void (``season_ending``), so nothing trades across a season's end
(C-8).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from tradeleague.agents.base import Agent, Turn, resume_agent
from tradeleague.agents.llm import ReplayMissed
from tradeleague.broker.base import Broker, RestorableBroker
from tradeleague.clock import Clock
from tradeleague.errors import ConfigError
from tradeleague.events import EventKind, utc_iso
from tradeleague.feeds.candles.base import CandleSource
from tradeleague.formats.direction.candle import MINUTE, Candle
from tradeleague.formats.direction.ledger import ROUND_VOIDED, Entrant
from tradeleague.formats.direction.preset import FORMAT, DirectionPreset
from tradeleague.formats.direction.prompt import answer_schema, build_messages
from tradeleague.formats.direction.restart import CUT_DETAIL, ArenaRecord, read_record, started_at
from tradeleague.formats.direction.season import SeasonEnd, season_end, season_id
from tradeleague.formats.direction.timing import round_times
from tradeleague.formats.direction.visitors import CallRefused, Refusal
from tradeleague.league.direction.faults import agent_fault, round_fault_payload, void_trades
from tradeleague.league.direction.round_state import OpenRound, RoundLog
from tradeleague.league.direction.trades import BROKER_ERROR, TradeDesk
from tradeleague.league.direction.visitors import Visitors, record_call
from tradeleague.league.mask import mask_mismatch
from tradeleague.league.pacing import Pacing
from tradeleague.league.turns import GRACE_S
from tradeleague.llm.records import CallKey
from tradeleague.market.mask import MaskTable, draw_mask, mask_from_payload
from tradeleague.money import Usd
from tradeleague.store import Store

__all__ = ["BROKER_ERROR", "SEASON_ENDING", "Contestant", "DirectionArena", "DirectionView"]

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


def _masked_candle(table: MaskTable, symbol: str, candle: Candle) -> Candle:
    """Return ``candle`` with each price as ``table`` shows it (the factor keeps their order)."""
    return Candle(
        open_time=candle.open_time,
        open=Usd(table.price(symbol, candle.open)),
        high=Usd(table.price(symbol, candle.high)),
        low=Usd(table.price(symbol, candle.low)),
        close=Usd(table.price(symbol, candle.close)),
    )


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
    mask
        Mask every season (`tradeleague.market.mask`): the asset is shown by a
        pseudonym and its prices times a factor, both drawn from the stream and
        season and recorded as the season's ``MaskDrawn``.
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
        mask: bool = False,
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
        self.mask = mask
        self._table: MaskTable | None = None
        self.season: str | None = None
        self._season_number = 0
        self._season_started: datetime | None = None
        self._log = RoundLog(store, stream, clock)
        self._desk = TradeDesk(
            log=self._log, broker=broker, clock=clock, pacing=pacing, preset=self.preset
        )
        self._visitors = Visitors(log=self._log, broker=broker, preset=self.preset)
        self._open: OpenRound | None = None
        self._in_flight: dict[str, int] = {}
        self._ending: SeasonEnd | None = None
        self._record: ArenaRecord | None = None
        self._resuming = asyncio.Lock()

    # -- restart -----------------------------------------------------------------

    async def resume(self) -> ArenaRecord:
        """Take up the arena's state from its stream, once (a fresh stream holds none).

        The season counter, the open season and its start, the visitors, every
        account's balance at a paper broker, the broker's trade numbering and
        each agent's turns so far (``resume_agent``) come from the log
        (``read_record``). Rounds cut mid-way are voided now, stakes back,
        and finished, exactly once; a season due to end (floor) ends now.

        Raises
        ------
        ConfigError
            If the open season was recorded with another roster.
        """
        async with self._resuming:
            if self._record is None:
                record = read_record(s.event for s in self.store.events(self.stream))
                await self._restore(record)
                self._record = record
            return self._record

    async def _restore(self, record: ArenaRecord) -> None:
        season = record.season
        names = [c.entrant.name for c in self.roster]
        if season is not None and [e.name for e in season.roster] != names:
            recorded = [e.name for e in season.roster]
            raise ConfigError(
                f"season {season.season} is open with the models {recorded}; "
                "restart it with the same roster"
            )
        self._season_number = record.seasons
        for c in self.roster:
            resume_agent(c.agent, record.turns.get(c.entrant.name, 0))
        if isinstance(self.broker, RestorableBroker):
            await self.broker.restore(record.balances, record.trades_placed)
        if season is None:
            return
        self.season = season.season
        self._season_started = started_at(season.started, "started_at")
        self._table = self._recorded_mask(season.season)
        self._visitors.entrants = dict(season.visitors)
        for view in record.cut:
            times = round_times(started_at(view.started, "open_at"), self.preset)
            live = OpenRound(times, season.season)
            live.started = True
            await self._void_after_fault(live, CUT_DETAIL)
        if not record.cut and record.last_open is not None:
            models = {n: await self.broker.balance(n) for n in names}
            end = season_end(self.preset, self._season_started, record.last_open, models)
            if end is SeasonEnd.FLOOR:
                self._ending = end
        await self._end_if_due()

    def _recorded_mask(self, season: str) -> MaskTable | None:
        """Return the mask table recorded for ``season``; refuse the other mask setting."""
        table = None
        for stored in self.store.events(self.stream):
            e = stored.event
            if e.kind == EventKind.MASK_DRAWN and e.payload_view.get("season") == season:
                table = mask_from_payload(e.payload_view)
        if (table is not None) != self.mask:
            raise ConfigError(mask_mismatch(season, table is not None))
        return table

    # -- seasons -----------------------------------------------------------------

    async def start_season(self) -> str:
        """Open a new season: every account (re)set to the starting balance (D-SEA-1)."""
        await self.resume()
        self._season_number += 1
        self.season = season_id(self._season_number)
        self._season_started = self.clock.now()
        self._visitors.reset()
        self._ending = None
        p = self.preset
        for c in self.roster:
            await self.broker.open_account(c.entrant.name, p.start_balance)
        self._log.record(
            self.season,
            EventKind.SEASON_STARTED,
            {
                "format": FORMAT,
                "replay": not self.pacing.live,
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
        self._table = None
        if self.mask:  # drawn from the stream and season: each season its own table
            seed = f"{self.stream}/{self.season}"
            self._table = draw_mask(seed, [p.symbol], self._season_started.date())
            self._log.record(self.season, EventKind.MASK_DRAWN, self._table.to_payload())
        return self.season

    async def end_season(self, reason: SeasonEnd) -> None:
        """Close the current season with its final balances (C-8)."""
        balances = {n: str(int(b)) for n, b in (await self._balances()).items()}
        self._log.record(
            self.season,
            EventKind.SEASON_ENDED,
            {"reason": reason.value, "ended_at": utc_iso(self.clock.now()), "balances": balances},
        )
        self.season = None
        self._ending = None

    async def _balances(self) -> dict[str, Usd]:
        names = [c.entrant.name for c in self.roster] + self._visitors.names()
        return {n: await self.broker.balance(n) for n in names}

    async def _end_if_due(self) -> None:
        season = self.season
        if season is not None and self._ending is not None and not self._in_flight.get(season):
            await self.end_season(self._ending)

    # -- visitors ----------------------------------------------------------------

    def visitor_call(self, visitor: str, direction: str, at: datetime | None = None) -> None:
        """Record a visitor's own call on the open round, as the site does (D-PUB-2).

        The call goes to the round's visitors stream through this arena's
        store (`record_call`, the site's own path) and is placed when the
        round next reads it.

        Raises
        ------
        CallRefused
            If no round is open, the name or direction is not valid, the call
            is late (D-RND-4), or the visitor already called this round.
        """
        live = self._open
        if live is None:
            raise CallRefused(Refusal.NO_OPEN_ROUND, "No round is open for calls.")
        record_call(
            self.store,
            stream=self.stream,
            times=live.times,
            preset=self.preset,
            visitor=visitor,
            direction=direction,
            at=at or self.clock.now(),
        )

    # -- one round ---------------------------------------------------------------

    async def run_round(self, open_at: datetime) -> str:
        """Run the round opening at ``open_at`` to its end; return its id.

        Raises
        ------
        ReplayMissed
            If a replayed agent cannot answer from the record (nothing of a
            round not yet written is left behind).
        """
        await self.resume()
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
        live = OpenRound(times, season)
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

    async def _guarded_play(self, live: OpenRound) -> None:
        try:
            await self._play(live)
        except (ReplayMissed, asyncio.CancelledError):
            await self._desk.cancel(live)
            if not live.written:
                live.pending.clear()  # nothing of this round reached the store
            else:
                with contextlib.suppress(Exception):
                    await self._void_after_fault(live, "the round was stopped")
            raise
        except Exception as exc:
            await self._desk.cancel(live)
            _log.exception("round %s failed (league fault); voided", live.round_id)
            await self._void_after_fault(live, f"{type(exc).__name__}: {exc}")

    async def _void_after_fault(self, live: OpenRound, detail: str) -> None:
        if not live.started:
            self._started(live, ())
        await void_trades(self.broker, live)
        self._log.emit(live, ROUND_VOIDED, round_fault_payload(live, detail))
        await self._finish(live, settled=0, void=True)

    async def _void_at_open(self, live: OpenRound, reason: str) -> None:
        self._started(live, ())
        self._log.emit(live, ROUND_VOIDED, {"round": live.round_id, "reason": reason})
        await self._finish(live, settled=0, void=True)

    def _started(self, live: OpenRound, history: Sequence[Candle]) -> None:
        p, times = self.preset, live.times
        live.started = True
        ask_at = live.ask_at or self.clock.now()
        self._log.emit(
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

    async def _play(self, live: OpenRound) -> None:
        p, times = self.preset, live.times
        history = await self.candles.history(p.symbol, times.open_at, p.candles)
        live.entry = _price_at(history, times.open_at)
        await self.pacing.ask(times.open_at)
        live.ask_at = self.clock.now()
        self._started(live, history)
        if live.entry is None:
            self._log.emit(live, ROUND_VOIDED, {"round": live.round_id, "reason": "no_market_data"})
            await self._finish(live, settled=0, void=True)
            return
        self._open = live
        if self.pacing.live:
            self._log.flush(live)
        try:
            await self._ask_all(live, history)
            await self._take_visitors(live)
        finally:
            if self._open is live:  # a late round may overlap the next one's open
                self._open = None
        await self._desk.placed(live)
        settled = await self._desk.settle(live)
        closes = len(settled.closes)
        await self._finish(live, settled=closes, void=not closes, label=settled.label)

    async def _ask_all(self, live: OpenRound, history: tuple[Candle, ...]) -> None:
        p, table = self.preset, self._table
        entry, shown = live.price, history
        if table is not None:  # a masked season: a pseudonym and scaled prices, no date shows
            p = replace(p, asset=table.symbol(p.symbol))
            entry = Usd(table.price(self.preset.symbol, entry))
            shown = tuple(_masked_candle(table, self.preset.symbol, c) for c in history)
        messages = build_messages(p, entry, shown)
        view = DirectionView(
            asset=p.asset, entry_price=entry, candles=shown, expiry=live.times.expiry
        )
        params = p.call_params()
        schema = answer_schema(p)
        asks = [
            (
                c.agent,
                Turn(
                    format=FORMAT,
                    key=CallKey(live.season, live.round_id, c.entrant.name, 0),
                    messages=messages,
                    params=params,
                    json_schema=schema,
                    view=view,
                ),
            )
            for c in self.roster
        ]
        # D-RND-3: the window is the calls' own deadline; an answer after it is a
        # timeout by its latency. The league stops waiting a grace later.
        limit = p.window + timedelta(seconds=GRACE_S)
        async with contextlib.aclosing(self.pacing.turns(asks, limit)) as turns:
            async for taken in turns:
                name = self.roster[taken.index].entrant.name
                if taken.fault is not None:
                    agent_fault(self._log, live, name, taken.fault)
                elif taken.reply is not None:
                    await self._desk.take(live, name, taken.reply)
                self._visitors.collect(live)
                await self._visitors.place(live, self._desk)
                if self.pacing.live:
                    self._log.flush(live)

    async def _take_visitors(self, live: OpenRound) -> None:
        """Read and place the visitors' calls until the calls close (D-PUB-2, D-RND-4).

        Live, the round's visitors stream is read every poll until half the
        late cutoff before expiry, so a call the site took just before the
        cutoff is still read; in replay it is read once.
        """
        cutoff = self.preset.late_cutoff
        until = live.times.expiry - cutoff / 2
        async for _ in self.pacing.polls(until, min(timedelta(seconds=1), cutoff / 2)):
            self._visitors.collect(live)
            await self._visitors.place(live, self._desk)
            if self.pacing.live:
                self._log.flush(live)

    async def _finish(
        self, live: OpenRound, *, settled: int, void: bool, label: str = "none"
    ) -> None:
        times = live.times
        balances = await self._balances()
        self._log.emit(
            live,
            EventKind.ROUND_FINISHED,
            {
                "round": times.round_id,
                "void": void,
                "label": label,
                "settled": settled,
                "balances": {n: str(int(b)) for n, b in balances.items()},
            },
        )
        self._log.flush(live)
        models = {c.entrant.name: balances[c.entrant.name] for c in self.roster}
        started = self._season_started or times.open_at
        if (
            live.season == self.season
            and self._ending is None
            and season_end(self.preset, started, times.open_at, models) is SeasonEnd.FLOOR
        ):
            self._ending = SeasonEnd.FLOOR


def _price_at(history: Sequence[Candle], moment: datetime) -> Usd | None:
    """Return the close of the last candle closed less than a minute before ``moment``.

    On the minute grid this is exactly the candle that ended at ``moment``; a
    gap there means no price (``no_market_data``), never an older one.
    """
    if history and moment - history[-1].close_time < MINUTE:
        return history[-1].close
    return None
