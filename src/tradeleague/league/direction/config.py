"""The league file's ``[direction]`` table, and the rules the hosted arena plays by.

``DirectionConfig.parse`` checks the table with the host's kit
(``host.leaguefile.Check``), naming every mistake with its line::

    [direction]  stream, start, market, exchange, symbol, api_base, payout, drill
    [[direction.agents]]  name, spec

``direction_preset`` turns it into the arena's rules (``DRILL``'s two-second
rounds with ``drill = true``, else the seed's, at the file's payout): the host
plays by them and ``tradeleague serve --config`` judges visitors' calls by them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import ClassVar

from tradeleague.formats.direction.preset import DirectionPreset
from tradeleague.host.leaguefile import Check, HostAgent

__all__ = ["DRILL", "DirectionConfig", "direction_preset"]

_TABLE = "direction"

DRILL = DirectionPreset(
    round_length=timedelta(seconds=2),
    window=timedelta(seconds=1),
    late_cutoff=timedelta(milliseconds=200),
    settle_grace=timedelta(seconds=3),
    candles=5,
)
"""The arena's drill rounds (2 s), for trying the live path in seconds."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DirectionConfig:
    """The direction arena: its stream, roster and candle feed (frozen or ccxt)."""

    agents: tuple[HostAgent, ...]
    stream: str = "direction"
    start: datetime | None = None
    market: Path | None = None
    exchange: str = "binance"
    symbol: str = "BTC/USDT"
    api_base: str | None = None
    payout: int = 80
    drill: bool = False

    KEYS: ClassVar[frozenset[str]] = frozenset(
        {"stream", "start", "market", "exchange", "symbol", "api_base", "payout", "drill"}
        | {"agents"}
    )
    """The table's keys; any other is a mistake."""

    @classmethod
    def parse(cls, data: object, check: Check) -> DirectionConfig | None:
        """Return ``[direction]`` checked, or ``None`` when it has mistakes (noted in ``check``)."""
        table = check.is_table(data, _TABLE)
        if table is None:
            return None
        check.table(table, _TABLE, set(cls.KEYS))
        stream = check.text(table, _TABLE, "stream", needed=False) or "direction"
        market = check.path_of(table, _TABLE, "market")
        payout = table.get("payout", 80)
        if not isinstance(payout, int) or isinstance(payout, bool) or not 0 <= payout <= 1000:
            check.bad(_TABLE, "payout", "payout is a whole percent, 0 to 1000")
            payout = 80
        drill = check.flag(table, _TABLE, "drill")
        agents = check.agents(table, _TABLE)
        return cls(
            agents=agents, stream=stream, start=check.moment(table, _TABLE, "start"),
            market=market, exchange=check.text(table, _TABLE, "exchange", needed=False)
            or "binance", symbol=check.text(table, _TABLE, "symbol", needed=False) or "BTC/USDT",
            api_base=check.text(table, _TABLE, "api_base", needed=False), payout=payout,
            drill=drill,
        )  # fmt: skip


def direction_preset(config: DirectionConfig) -> DirectionPreset:
    """Return the rules the league file's arena plays by (drill rounds or the seed's, its payout).

    The host plays by them and the site judges visitors' calls by them (the
    round grid and the late cutoff), so both read them from here.
    """
    base = DRILL if config.drill else DirectionPreset()
    return replace(base, payout_ppm=config.payout * 10_000)
