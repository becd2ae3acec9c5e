"""Visitors' own calls: logged on the open round, placed like a model's (SPEC D-PUB-2).

A visitor's account (``visitor:NAME``) is opened at the season's starting
balance on its first call of the season; its calls are ranked apart from the
models. The name is user text: the public payloads show it as plain text
(C-10, ``tradeleague.formats.direction.publish.shown``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from tradeleague.broker.base import Broker
from tradeleague.errors import ConfigError
from tradeleague.formats.direction.answer import Answer
from tradeleague.formats.direction.ledger import VISITOR_CALL_LOGGED, Entrant
from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.league.direction.round_state import OpenRound, RoundLog, VisitorCall
from tradeleague.league.direction.trades import TradeDesk

__all__ = ["VISITOR_PREFIX", "Visitors"]

VISITOR_PREFIX = "visitor:"
"""The prefix of a visitor's account name."""


class Visitors:
    """A season's visitors: their accounts, and their calls queued on open rounds.

    Parameters
    ----------
    log
        Where the round's events go.
    broker
        Where the visitors' accounts are opened.
    preset
        The arena's rules (the starting balance).
    """

    def __init__(self, *, log: RoundLog, broker: Broker, preset: DirectionPreset) -> None:
        self.log = log
        self.broker = broker
        self.preset = preset
        self.entrants: dict[str, Entrant] = {}

    def reset(self) -> None:
        """Forget the season's visitors (a new season opens their accounts afresh)."""
        self.entrants = {}

    def names(self) -> list[str]:
        """Return the account names of the season's visitors, in order of first call."""
        return list(self.entrants)

    @staticmethod
    def call(live: OpenRound | None, visitor: str, direction: str, at: datetime) -> None:
        """Queue ``visitor``'s call on the open round ``live``.

        Raises
        ------
        ConfigError
            If no round is open, the direction is not ``up``/``down``, or the
            visitor already called this round.
        """
        if direction not in ("up", "down"):
            raise ConfigError("a call is exactly 'up' or 'down'")
        if live is None:
            raise ConfigError("no round is open for calls")
        name = f"{VISITOR_PREFIX}{visitor}"
        if any(v.name == name for v in live.visitors):
            raise ConfigError(f"{visitor} already called this round")
        live.visitors.append(VisitorCall(name, direction, at))

    async def place(self, live: OpenRound, desk: TradeDesk) -> None:
        """Log and place every call queued on ``live`` (D-PUB-2), opening new accounts."""
        queued, live.visitors = live.visitors, []
        for call in queued:
            if call.name not in self.entrants:
                self.entrants[call.name] = Entrant(
                    name=call.name, provider="visitor", tier="visitor", model="human",
                    kind="visitor",
                )  # fmt: skip
                await self.broker.open_account(call.name, self.preset.start_balance)
            entrant = self.entrants[call.name]
            self.log.emit(
                live,
                VISITOR_CALL_LOGGED,
                {"round": live.round_id, "agent": call.name, "entrant": entrant.to_payload()},
            )
            latency = int((call.at - live.asked) / timedelta(milliseconds=1))
            answer = Answer(direction="up" if call.direction == "up" else "down", rationale="")
            await desk.decide(live, call.name, answer, call.at, latency, text=None)
