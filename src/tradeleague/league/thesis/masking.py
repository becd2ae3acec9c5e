"""The thesis cycle's hook for masked seasons: what is shown, and how answers map back.

The transform is the season's `MaskTable` (`tradeleague.market.mask`); this
module applies it to what a thesis cycle shows and reads:

* asset rows (`shown_asset`): the pseudonym instead of the name, the price and
  every candle's open/high/low/close times the symbol's factor, candle times as
  ``day N HH:MM UTC`` (volume, RSI and the 1-day change are unchanged: they
  name no level);
* the model's snapshot (`shown_snapshot`): its positions by pseudonym, their
  prices and invalidation prices as shown (values and P&L are the account's
  own money, not price levels);
* the rule-based agents' view (`shown_view`);
* answers (`answer_reader`): each decision's pseudonym back to the real
  symbol, a name that is no pseudonym made unknown (so a real ticker guessed
  from memory is rejected, never traded), and its invalidation price divided
  by the factor, half-even to the cent for a stock and to the micro-dollar
  (the engine's unit) for a crypto asset;
* the correction prompt (`correction_shown`): results by pseudonym, fill
  prices as shown, no rejection detail (it may quote real levels).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from tradeleague.formats.thesis.answer import Answer, Item
from tradeleague.formats.thesis.baselines import ThesisView
from tradeleague.formats.thesis.candles import Candle
from tradeleague.formats.thesis.prompt import AssetView, Shown
from tradeleague.formats.thesis.universe import AssetClass, Universe, normalise
from tradeleague.market.mask import CENT, MaskTable
from tradeleague.money import micros_to_str, usd

__all__ = [
    "answer_reader",
    "correction_shown",
    "shown_asset",
    "shown_row",
    "shown_snapshot",
    "shown_view",
]

UNKNOWN_PREFIX = "?"
"""Put before an answer's name that is no pseudonym: no symbol is written so."""


def shown_row(table: MaskTable, symbol: str, candle: Candle) -> list[object]:
    """Return a candle's row (``Candle.to_row``) as a masked season shows it."""
    return [
        table.when(datetime.fromtimestamp(candle.start, UTC)),
        micros_to_str(table.price(symbol, candle.open)),
        micros_to_str(table.price(symbol, candle.high)),
        micros_to_str(table.price(symbol, candle.low)),
        micros_to_str(table.price(symbol, candle.close)),
        micros_to_str(candle.volume),
    ]


def shown_asset(
    table: MaskTable,
    symbol: str,
    price: int | None,
    closed: Mapping[str, Sequence[Candle]],
    view: AssetView,
) -> AssetView:
    """Return ``view`` (the real row of ``symbol``) as a masked season shows it."""
    return replace(
        view,
        symbol=table.symbol(symbol),
        price="" if price is None else micros_to_str(table.price(symbol, price)),
        candles={k: [shown_row(table, symbol, c) for c in v] for k, v in closed.items()},
    )


def _real(table: MaskTable, universe: Universe, name: str) -> str | None:
    """Return the provider symbol of a shown or recorded name, or None."""
    found = universe.provider_symbol(name)
    return found if found in table.names else None


def shown_snapshot(
    table: MaskTable, universe: Universe, rows: Sequence[Mapping[str, object]]
) -> list[dict[str, object]]:
    """Return a snapshot's position rows with pseudonyms and shown price levels."""
    out = []
    for row in rows:
        real = _real(table, universe, str(row["symbol"]))
        shown = dict(row)
        if real is not None:
            shown["symbol"] = table.symbol(real)
            for key in ("price", "invalidation_price"):
                text = str(row.get(key) or "")
                if text:
                    shown[key] = micros_to_str(table.price(real, usd(text)))
        out.append(shown)
    return out


def shown_view(table: MaskTable, view: ThesisView, universe: Universe) -> ThesisView:
    """Return the rule-based agents' view with pseudonyms and shown prices."""

    def name(shown: str) -> str:
        real = _real(table, universe, shown)
        return shown if real is None else table.symbol(real)

    def price(shown: str, text: str) -> str:
        real = _real(table, universe, shown)
        return text if real is None else micros_to_str(table.price(real, usd(text)))

    return replace(
        view,
        screened=[name(s) for s in view.screened],
        crypto=frozenset(name(s) for s in view.crypto),
        prices={name(s): price(s, p) for s, p in sorted(view.prices.items())},
        positions={name(s): q for s, q in view.positions.items()},
    )


def answer_reader(table: MaskTable, universe: Universe) -> Callable[[Answer], Answer]:
    """Return the map of a parsed answer from the masked space back to the real one."""

    def item(it: Item) -> Item:
        try:
            real = table.real(it.symbol)
        except KeyError:
            return replace(it, symbol=UNKNOWN_PREFIX + it.symbol)
        price = it.invalidation_price
        if price is not None:
            crypto = universe.asset_class(real) is AssetClass.CRYPTO
            price = table.unprice(real, price, tick=1 if crypto else CENT)
        return replace(it, symbol=normalise(real), invalidation_price=price)

    def read(answer: Answer) -> Answer:
        return replace(answer, items=tuple(item(it) for it in answer.items))

    return read


def correction_shown(table: MaskTable, universe: Universe) -> Shown:
    """Return how the correction prompt of a masked season names results and fill prices."""

    def symbol(name: str) -> str:
        real = _real(table, universe, name)
        return name.removeprefix(UNKNOWN_PREFIX) if real is None else table.symbol(real)

    def price(name: str, micros: int) -> int:
        real = _real(table, universe, name)
        return micros if real is None else table.price(real, micros)

    return Shown(symbol=symbol, price=price)
