"""The built-in paper broker: binary options settled against a candle source (SPEC D-TRD-3).

It keeps every account's balance itself (the arena only reads it back), takes
the stake when a trade is placed (``tradeleague.sim.place``) and, once the exit
candle has closed, settles it with
``tradeleague.sim.BinaryOption`` at the payout that applied when the trade was
placed: a win credits stake + stake x payout, a draw the stake, a loss nothing.
The close event is stamped ``expiry + settle_delay``. The exit candle is the
one-minute candle that covers the expiry instant, ``(open, close]``: on the
minute grid the candle that ends at the expiry (the seed's five-minute rounds),
off it (drill rounds) the candle running at the expiry, floored to its minute.

For tests and drills it can misbehave on purpose, deterministically:
``reject`` refuses chosen orders with an error code (``trade_rejected``);
``lose_close`` makes chosen trades never report a close (``unsettled``);
``payout_for`` applies a payout other than the configured one (the arena must
follow the broker, D-TRD-3). A trade whose exit candle is missing from the
source reports no close either. Either way the arena voids the trade after the
grace (``void``) and its stake is returned; a voided trade never settles later.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from tradeleague.broker.base import BinaryOrder, CloseEvent, Placed, Rejected
from tradeleague.feeds.candles.base import CandleSource
from tradeleague.money import Usd
from tradeleague.sim import DEFAULT_PAYOUT_PPM, BinaryOption, SimError, place

__all__ = ["PaperBroker", "exit_candle_open"]


def exit_candle_open(expiry: datetime) -> datetime:
    """Return the open of the one-minute candle covering ``expiry``, ``(open, open + 1 min]``.

    On the minute grid that is the candle ending at the expiry; off it, the
    candle running at the expiry (its minute floored).

    Examples
    --------
    >>> exit_candle_open(datetime(2025, 9, 1, 6, 5, tzinfo=UTC)).strftime("%H:%M:%S")
    '06:04:00'
    >>> exit_candle_open(datetime(2025, 9, 1, 6, 5, 5, tzinfo=UTC)).strftime("%H:%M:%S")
    '06:05:00'
    """
    stamp = expiry.timestamp()
    minute = int(stamp // 60) * 60
    if minute == stamp:
        minute -= 60
    return datetime.fromtimestamp(minute, UTC)


@dataclass(slots=True)
class _Trade:
    placed: Placed
    lost: bool
    close: CloseEvent | None = None
    voided: bool = False


class PaperBroker:
    """A paper broker for binary options (the arena's default adapter, ours).

    Parameters
    ----------
    candles
        Where exit prices come from: the close of the one-minute candle that
        covers the expiry (see the module notes).
    payout_ppm
        The payout on a win, parts per million of the stake (80% = 800,000).
    payout_for
        A payout per order instead (the broker's conditions at the moment of
        the trade); overrides ``payout_ppm``.
    reject
        Returns an error code to refuse an order, or ``None`` to accept it.
    lose_close
        Returns true for a trade whose close is never reported (by trade id).
    settle_delay
        How long after expiry a close is reported.
    """

    def __init__(
        self,
        candles: CandleSource,
        *,
        payout_ppm: int = DEFAULT_PAYOUT_PPM,
        payout_for: Callable[[BinaryOrder], int] | None = None,
        reject: Callable[[BinaryOrder], str | None] | None = None,
        lose_close: Callable[[str, BinaryOrder], bool] | None = None,
        settle_delay: timedelta = timedelta(0),
    ) -> None:
        if payout_ppm < 0:
            raise ValueError("a payout must be >= 0")
        self._candles = candles
        self._payout_ppm = payout_ppm
        self._payout_for = payout_for
        self._reject = reject
        self._lose_close = lose_close
        self._delay = settle_delay
        self._balances: dict[str, Usd] = {}
        self._trades: dict[str, _Trade] = {}
        self._next = 1

    async def open_account(self, account: str, balance: Usd) -> None:
        """Open ``account`` at ``balance``, or reset it to that for a new season."""
        if balance < 0:
            raise ValueError("an opening balance cannot be negative")
        self._balances[account] = balance

    async def restore(self, balances: Mapping[str, Usd], trades_placed: int) -> None:
        """Take up the book an arena's log holds: balances, and the trade numbering.

        Trades placed before are not known here: their rounds are finished
        (settled or voided) in the log, or voided by the restarted arena.
        """
        for account, balance in balances.items():
            await self.open_account(account, balance)
        self._next = max(self._next, trades_placed + 1)

    async def balance(self, account: str) -> Usd:
        """Return ``account``'s balance (stakes of open trades are held, not included).

        Raises
        ------
        KeyError
            For an account never opened.
        """
        return self._balances[account]

    async def place(self, order: BinaryOrder) -> Placed | Rejected:
        """Place ``order``, or refuse it with an error code."""
        if order.account not in self._balances:
            return Rejected(code="unknown_account", message=f"no account {order.account!r}")
        if order.expiry <= order.placed_at:
            return Rejected(code="expired", message="the expiry has already passed")
        if self._reject is not None:
            code = self._reject(order)
            if code is not None:
                return Rejected(code=code, message="the broker refused the order")
        payout = self._payout_ppm if self._payout_for is None else self._payout_for(order)
        option = BinaryOption(
            direction=order.kind,
            stake=order.stake,
            entry_price=order.strike,
            expiry=order.expiry,
            payout_ppm=payout,
        )
        try:
            self._balances[order.account] = place(self._balances[order.account], option)
        except SimError as exc:
            return Rejected(code="insufficient_balance", message=str(exc))
        trade_id = f"PB{self._next:09d}"
        self._next += 1
        placed = Placed(trade_id=trade_id, order=order, payout_ppm=payout)
        lost = self._lose_close is not None and self._lose_close(trade_id, order)
        self._trades[trade_id] = _Trade(placed, lost)
        return placed

    async def closes(self, trade_ids: Sequence[str]) -> list[CloseEvent]:
        """Settle what can be settled now and return the close events of ``trade_ids``."""
        events: list[CloseEvent] = []
        for trade_id in trade_ids:
            trade = self._trades.get(trade_id)
            if trade is None or trade.lost or trade.voided:
                continue
            if trade.close is None:
                trade.close = await self._settle(trade.placed)
            if trade.close is not None:
                events.append(trade.close)
        return events

    async def void(self, trade_ids: Sequence[str]) -> None:
        """Void ``trade_ids``: return each stake and never report them again (D-SKP-1).

        A trade already settled here has its settlement reversed, so the
        balance is as if it had never been placed; unknown ids are ignored.
        """
        for trade_id in trade_ids:
            trade = self._trades.get(trade_id)
            if trade is None or trade.voided:
                continue
            order = trade.placed.order
            credit = 0 if trade.close is None else int(order.stake) + int(trade.close.pnl)
            balance = self._balances[order.account] - credit + order.stake
            self._balances[order.account] = Usd(balance)
            trade.voided = True

    async def _settle(self, placed: Placed) -> CloseEvent | None:
        order = placed.order
        exit_candle = await self._candles.candle(order.symbol, exit_candle_open(order.expiry))
        if exit_candle is None:
            return None
        option = BinaryOption(
            direction=order.kind,
            stake=order.stake,
            entry_price=order.strike,
            expiry=order.expiry,
            payout_ppm=placed.payout_ppm,
        )
        settlement = option.settle(exit_candle.close)
        self._balances[order.account] = Usd(self._balances[order.account] + settlement.credit)
        return CloseEvent(
            trade_id=placed.trade_id,
            account=order.account,
            client_ref=order.client_ref,
            kind=order.kind,
            outcome=settlement.outcome,
            entry_price=order.strike,
            exit_price=settlement.exit_price,
            pnl=settlement.pnl,
            payout_ppm=placed.payout_ppm,
            closed_at=order.expiry + self._delay,
        )
