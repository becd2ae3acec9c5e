"""Faults in a direction round: whose they are and what is recorded (DESIGN principle 7, C-7).

One failure never takes the others down:

* An agent that raises instead of answering (``turns.TurnFault``, contained by
  the one turn machinery every format shares) is skipped with ``league_fault``
  (``skips.LEAGUE_FAULT``, the league's fault, not the model's, C-7); the
  others carry on. ``ReplayMissed`` (a replay that cannot answer from the
  record) stays loud: it propagates.
* Any other failure of the round itself voids the round: ``RoundVoided`` with
  reason ``league_fault`` and the error (``round_fault_payload``); the arena
  voids its placed trades with the broker (stakes back) and still finishes it.
"""

from __future__ import annotations

import logging
from typing import Any

from tradeleague.broker.base import Broker
from tradeleague.formats.direction.skips import LEAGUE_FAULT
from tradeleague.league.direction.round_state import OpenRound, RoundLog
from tradeleague.league.turns import TurnFault

__all__ = ["agent_fault", "round_fault_payload", "void_trades"]

_log = logging.getLogger(__name__)


def agent_fault(log: RoundLog, live: OpenRound, name: str, fault: TurnFault) -> None:
    """Skip ``name`` as a league fault (D-SKP-1, C-7), the error in the detail."""
    _log.error("agent %s raised in round %s (league fault)", name, live.round_id)
    log.skip(live, name, LEAGUE_FAULT, fault.detail, fault=fault.fault)


def round_fault_payload(live: OpenRound, detail: str) -> dict[str, Any]:
    """Return the ``RoundVoided`` payload of a round the league failed (``league_fault``)."""
    return {"round": live.round_id, "reason": LEAGUE_FAULT, "detail": f"league fault: {detail}"}


async def void_trades(broker: Broker, live: OpenRound) -> None:
    """Void every trade placed in ``live`` with the broker: stakes back (D-SKP-1 ``void``)."""
    if live.trades:
        await broker.void(list(live.trades))
