"""A weights season's universe from the chain: read once at its start, recorded, shown.

At a season's start the host reads every feed of the operator's feed registry
and each token's ERC-20 supply over JSON-RPC (``ChainlinkSource.read_universe``),
and the format's rule (``formats.weights.choose_universe``: the round's price
checks, then the largest value outstanding) picks the symbols. The result is
recorded as one ``UniverseChosen`` event in the season's stream, beside its
``SeasonStarted`` (whose ``symbols`` are the universe), with every input: the
registry entry, the raw feed read, the reference price or why it is invalid,
the raw supply and its decimals, the value outstanding, the rank, and why a
symbol was left out. The season's rounds read the universe from that record
only, so a registry change takes effect at the next season.

``universe_view`` is the one read model of a season's universe (the
methodology page, its JSON route, ``tradeleague status``, ``tradeleague
universe``); REPORT.json carries the recorded payload itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from tradeleague.errors import ConfigError
from tradeleague.events import Event
from tradeleague.events import weights as ev
from tradeleague.events.weights import UNIVERSE_CHOSEN
from tradeleague.formats.weights import (
    FeedReading,
    LeftOut,
    SupplyReading,
    Universe,
    WeightsPreset,
    choose_universe,
)
from tradeleague.money import micros_to_str

if TYPE_CHECKING:
    from tradeleague.feeds.registry import FeedRegistry
    from tradeleague.league.weights.state import SeasonState

__all__ = [
    "LEFT_OUT_TEXT",
    "UniverseUnreadable",
    "read_universe",
    "recorded_registry",
    "taken_universe",
    "universe_event",
    "universe_lines",
    "universe_payload",
    "universe_summary",
    "universe_view",
    "view_of",
]

LEFT_OUT_TEXT: Final = {
    LeftOut.PRICE_INVALID: "its feed gave no valid price",
    LeftOut.STALE: "its feed last published more than 25 hours before the freshest feed",
    LeftOut.NO_TOKEN: "the registry names no token for it, so it has no supply to size it by",
    LeftOut.SUPPLY_UNREADABLE: "its token's supply could not be read",
    LeftOut.OUTSIDE_TOP: "less value outstanding than the symbols chosen",
}
"""Why a symbol was left out, in words (the page and ``tradeleague universe``)."""


class UniverseUnreadable(ConfigError):
    """A season's universe could not be read from the chain (node or registry)."""


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else ev.iso(moment)


def _int_text(value: int | None) -> str | None:
    return None if value is None else str(value)


def universe_payload(
    universe: Universe,
    registry: FeedRegistry,
    *,
    season: str,
    read_at: datetime,
    node_block_time: datetime | None,
    size: int,
) -> dict[str, Any]:
    """Return the ``UniverseChosen`` payload of ``universe`` (canonical JSON: integers as text)."""
    rows = []
    for row in universe.rows:
        entry = registry.feeds[row.symbol]
        r: FeedReading = row.reading
        s: SupplyReading = row.supply
        errors = "; ".join(e for e in (r.error, s.error) if e) or None
        rows.append(
            {
                "symbol": row.symbol,
                "aggregator": str(entry.aggregator),
                "token": None if entry.token is None else str(entry.token),
                "decimals": entry.decimals,
                "answer": _int_text(r.answer),
                "reported_decimals": r.decimals,
                "updated_at": _iso(r.updated_at),
                "paused": r.paused,
                "multiplier": None if r.multiplier is None else [str(v) for v in r.multiplier],
                "price": _int_text(row.price),
                "invalid": None if row.invalid is None else row.invalid.value,
                "supply": _int_text(s.supply),
                "supply_decimals": s.decimals,
                "value": _int_text(row.value),
                "rank": row.rank,
                "chosen": row.chosen,
                "left_out": None if row.left_out is None else row.left_out.value,
                "error": errors,
            }
        )
    return {
        "season": season,
        "read_at": ev.iso(read_at),
        "registry": registry.name,
        "chain_id": registry.chain_id,
        "multiplier_decimals": registry.multiplier_decimals,
        "node_block_time": _iso(node_block_time),
        "size": size,
        "stale_before": _iso(universe.stale_before),
        "symbols": list(universe.symbols),
        "rows": rows,
    }


async def read_universe(
    registry: FeedRegistry,
    url: str,
    *,
    season: str,
    at: datetime,
    preset: WeightsPreset,
    timeout_s: float = 5.0,
) -> dict[str, Any]:
    """Read every feed and supply of ``registry`` at ``at`` and return the universe's payload.

    ``at`` is when the season's clock says the read is made (recorded as
    ``read_at``); the price checks judge the feeds as of the node's latest block,
    the state the node answered from (recorded as ``node_block_time``).

    Raises
    ------
    UniverseUnreadable
        If the node could not be read (or is on another chain), or no symbol
        of the registry qualifies.
    """
    from tradeleague.feeds.chainlink import ChainlinkSource  # web3 only when a chain is read

    source = ChainlinkSource(registry, url, timeout_s=timeout_s)
    reading, supplies, node_error = await source.read_universe(at)
    if node_error is not None:
        raise UniverseUnreadable(
            f"cannot read the universe of season {season}: the RPC node of registry "
            f"{registry.name} could not be read ({node_error})"
        )
    # The state read is the node's latest block's: the price checks are made as of it, so a
    # host under the replay clock (``at`` in the past) can still read a live node.
    block = reading.node_block_time or at
    universe = choose_universe(reading.readings, supplies, registry.decimals, block, preset)
    if not universe.symbols:
        raise UniverseUnreadable(
            f"no symbol of registry {registry.name} has a valid price and a readable supply, "
            f"so season {season} has no universe"
        )
    return universe_payload(
        universe,
        registry,
        season=season,
        read_at=at,
        node_block_time=reading.node_block_time,
        size=preset.universe_size,
    )


def universe_event(stream: str, payload: Mapping[str, object], at: datetime) -> Event:
    """Return the ``UniverseChosen`` event of ``payload`` in ``stream``."""
    return ev.event(stream, UNIVERSE_CHOSEN, payload, at)


def taken_universe(recorded: SeasonState, season: str) -> tuple[tuple[str, ...], dict[str, Any]]:
    """Return a recorded season's symbols and, if read from the chain, its universe.

    The universe payload is renamed for ``season``; ``taken_from`` names the
    recorded season (or the one it was itself taken from).

    Raises
    ------
    ConfigError
        If the recorded season never started.
    """
    if not recorded.started:
        name = recorded.stream.removeprefix(ev.STREAM_PREFIX)
        raise ConfigError(f"the universe's database holds no weights season {name!r}")
    payload: dict[str, Any] = {}
    if recorded.universe is not None:
        payload = {**recorded.universe, "season": season}
        payload["taken_from"] = str(recorded.universe.get("taken_from") or recorded.season_id)
    return recorded.symbols, payload


def recorded_registry(payload: Mapping[str, Any]) -> FeedRegistry:
    """Return the feed registry a season recorded for its chosen symbols (what its rounds read).

    A season's rounds read the feeds as they were on record at its start, so a
    later change of the registry file waits for the next season.
    """
    from tradeleague.feeds.registry import parse_registry  # eth_utils: slow to import

    feeds: dict[str, dict[str, Any]] = {}
    for row in payload["rows"]:
        if row["chosen"]:
            entry = {"aggregator": row["aggregator"], "decimals": row["decimals"]}
            if row["token"] is not None:
                entry["token"] = row["token"]
            feeds[str(row["symbol"])] = entry
    data: dict[str, Any] = {"feeds": feeds, "multiplier_decimals": payload["multiplier_decimals"]}
    if payload.get("chain_id") is not None:
        data["chain_id"] = payload["chain_id"]
    return parse_registry(data, name=str(payload["registry"]))


def _scaled(raw: object, decimals: object) -> str | None:
    """Return the exact decimal text of ``raw x 10**-decimals`` (``None`` when unknown)."""
    if raw is None or not isinstance(decimals, int):
        return None
    value = int(str(raw))
    sign, digits = ("-" if value < 0 else ""), str(abs(value))
    if decimals <= 0:
        return sign + digits + "0" * -decimals
    digits = digits.rjust(decimals + 1, "0")
    whole, frac = digits[:-decimals], digits[-decimals:].rstrip("0")
    return sign + whole + ("." + frac if frac else "")


def _money(raw: object) -> str | None:
    return None if raw is None else micros_to_str(int(str(raw)))


def universe_view(state: SeasonState) -> dict[str, Any]:
    """Return a season's universe as shown: its symbols and every input it was built from.

    Prices and values are dollars, supplies tokens, all exact decimal text.
    ``built_from`` is ``chain`` (read at the season's start, or taken from a
    recorded season that was) or ``list`` (a fixed list: the operator's symbols).
    """
    return view_of(state.season_id, state.symbols, state.universe)


def view_of(season: str, symbols: Sequence[str], p: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return `universe_view` of a season's symbols and its ``UniverseChosen`` payload."""
    view: dict[str, Any] = {"season": season, "symbols": list(symbols), "built_from": "list"}
    if p is None:
        return view
    rows = []
    for row in p["rows"]:
        left = row["left_out"]
        rows.append(
            {
                "symbol": row["symbol"],
                "chosen": row["chosen"],
                "rank": row["rank"],
                "price": _money(row["price"]),
                "invalid": row["invalid"],
                "updated_at": row["updated_at"],
                "supply": _scaled(row["supply"], row["supply_decimals"]),
                "value": _money(row["value"]),
                "left_out": left,
                "left_out_text": None if left is None else LEFT_OUT_TEXT[LeftOut(left)],
                "aggregator": row["aggregator"],
                "token": row["token"],
                "decimals": row["decimals"],
                "reported_decimals": row["reported_decimals"],
                "answer": row["answer"],
                "multiplier": row["multiplier"],
                "paused": row["paused"],
                "error": row["error"],
            }
        )
    rows.sort(key=lambda r: (r["rank"] is None, r["rank"] or 0, r["symbol"]))
    return {
        **view,
        "built_from": "chain",
        "read_at": p["read_at"],
        "registry": p["registry"],
        "chain_id": p["chain_id"],
        "node_block_time": p["node_block_time"],
        "size": p["size"],
        "stale_before": p["stale_before"],
        "taken_from": p.get("taken_from"),
        "rows": rows,
    }


def universe_summary(view: Mapping[str, Any]) -> str:
    """Return a ``universe_view`` in one line of words (``tradeleague status``)."""
    symbols = ", ".join(view["symbols"])
    count = len(view["symbols"])
    if view["built_from"] != "chain":
        return f"universe: {count} symbols, a fixed list: {symbols}"
    taken = f", taken from season {view['taken_from']}" if view.get("taken_from") else ""
    left = [
        f"{r['symbol']} ({r['left_out']}{': ' + r['invalid'] if r['invalid'] else ''})"
        for r in view["rows"]
        if r["left_out"] is not None
    ]
    return (
        f"universe: {count} symbols read from the chain at {view['read_at']} (registry "
        f"{view['registry']}{taken}): {symbols}; left out: {', '.join(left) or 'none'}"
    )


def universe_lines(view: Mapping[str, Any]) -> list[str]:
    """Return a ``universe_view`` as lines of text: a heading, then one line per symbol.

    ``tradeleague universe`` prints them; ``starts`` in the view names the season's
    first day.
    """
    starts = f" (from {view['starts']})" if view.get("starts") else ""
    head = f"Season {view['season']}{starts}"
    if not view["season"]:
        head = "No season of the league file is left to open; a season"
    if view["built_from"] != "chain":
        return [
            f"{head} holds a fixed list of {len(view['symbols'])} symbols, not read from the "
            "chain:",
            ", ".join(view["symbols"]),
        ]
    chain = f" on chain {view['chain_id']}" if view.get("chain_id") is not None else ""
    lines = [
        f"{head} would hold these {len(view['symbols'])} symbols if it started now "
        f"(read at {view['read_at']} from registry {view['registry']}{chain}):",
        f"{'rank':>4}  {'symbol':<8} {'price (USD)':>16} {'supply (tokens)':>26} "
        f"{'value outstanding (USD)':>26}  in the universe",
    ]
    for r in view["rows"]:
        why = "yes" if r["chosen"] else f"no: {r['left_out_text']}"
        if r["invalid"]:
            why += f" ({r['invalid']})"
        rank = "-" if r["rank"] is None else str(r["rank"])
        lines.append(
            f"{rank:>4}  {r['symbol']:<8} {r['price'] or '-':>16} {r['supply'] or '-':>26} "
            f"{r['value'] or '-':>26}  {why}"
        )
    lines.append("Nothing was written: a season reads the chain again when it starts.")
    return lines
