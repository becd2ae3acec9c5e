"""The decision prompt and the correction-round prompt (SPEC T-CYC-5, T-CYC-9, T-MON-2).

The cycle prompt holds the full candles (raw) and RSI of every screened asset
and every held position, both benchmarks, a summary row for every universe
asset (a stock's only while the US market is open, unless the model holds it:
T-UNI-3; the caller picks the rows), the model's snapshot (equity, positions,
unrealised P&L) and previous theses, and the rules. The correction prompt
lists the rejection reasons, the trades already executed and the remaining
budget for new positions. Symbols are the normalised names; the texts are JSON
so model text stays data.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tradeleague.calls import Message
from tradeleague.formats.thesis.answer import AnswerReject
from tradeleague.formats.thesis.execution import Result
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.money import micros_to_str

__all__ = ["AssetView", "Shown", "Snapshot", "correction_messages", "cycle_messages"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AssetView:
    """One asset as shown: normalised name, price, RSI and candles (empty for a summary row)."""

    symbol: str
    price: str
    change_1d: str | None
    rsi: Mapping[str, str | None]
    candles: Mapping[str, Sequence[Sequence[object]]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """A model's state at the cycle (T-CYC-4): money as decimal strings, names normalised."""

    equity: str
    cash: str
    positions: Sequence[Mapping[str, object]]


@dataclass(frozen=True, slots=True)
class Shown:
    """How the correction prompt names a result's symbol and fill price, where not as recorded.

    A masked season's: the pseudonym of a symbol (``symbol``, given the
    result's symbol), the fill price as shown (``price``, given the result's
    symbol and the real price), and no rejection detail (it may quote real levels).
    """

    symbol: Callable[[str], str]
    price: Callable[[str, int], int]


def _rules(preset: ThesisPreset) -> str:
    return (
        "Rules: actions are open_long, open_short, add (only to a position in profit), "
        "close (percent_of_position 1-100, full when omitted) and hold (may move "
        f"invalidation_price). Size in percent_of_equity, {preset.min_percent} to "
        f"{preset.max_percent}; at most {preset.max_positions} positions; gross exposure may "
        f"not exceed equity. Opens and adds need thesis, invalidation, invalidation_price "
        f"and confidence {preset.min_confidence_pct / 100:.2f} to "
        f"{preset.max_confidence_pct / 100:.2f}; a long's invalidation_price is below the "
        "price, a short's above. One action per symbol per cycle; no close in the opening "
        "cycle; no reopening in the same direction the cycle after a close. Stocks trade "
        f"only while the US market is open. Fee {preset.fee_ppm / 10_000:g}% per trade. "
        "A monitor closes a position when its invalidation_price breaks."
    )


_SCHEMA = (
    'Answer with one JSON object: {"reasoning": "2-4 sentences", "market_context": '
    '{"overall_sentiment": "bullish|bearish|neutral", "key_factors": ["..."]}, '
    '"decisions": [{"action": "...", "symbol": "...", "percent_of_equity": 10, '
    '"invalidation_price": 0, "confidence": 0.8, "percent_of_position": 100, '
    '"thesis": "...", "invalidation": "...", "rationale": "..."}]}. '
    "An empty decisions list means no trades."
)


def cycle_messages(
    *,
    time: str,
    detailed: Sequence[AssetView],
    benchmarks: Sequence[AssetView],
    summary: Sequence[AssetView],
    snapshot: Snapshot,
    preset: ThesisPreset,
) -> tuple[Message, ...]:
    """Return the cycle's messages for one model (T-CYC-5)."""
    body = {
        "time": time,
        "account": {
            "equity": snapshot.equity,
            "cash": snapshot.cash,
            "positions": list(snapshot.positions),
        },
        "benchmarks": [_view(a) for a in benchmarks],
        "screened_and_held": [_view(a) for a in detailed],
        "universe": [
            {"symbol": a.symbol, "price": a.price, "change_1d": a.change_1d} for a in summary
        ],
    }
    return (
        Message("system", f"You manage a paper portfolio. {_rules(preset)} {_SCHEMA}"),
        Message("user", json.dumps(body, sort_keys=True, separators=(",", ":"))),
    )


def _view(asset: AssetView) -> dict[str, object]:
    return {
        "symbol": asset.symbol,
        "price": asset.price,
        "rsi": dict(asset.rsi),
        "candles": {k: [list(r) for r in v] for k, v in asset.candles.items()},
    }


def correction_messages(
    first: Sequence[Message],
    raw_answer: str,
    answer_reject: AnswerReject | None,
    results: Sequence[Result],
    budget_left: int,
    shown: Shown | None = None,
) -> tuple[Message, ...]:
    """Return the one follow-up prompt of the correction round (T-CYC-9).

    ``shown``: how a masked season names symbols and fill prices (see `Shown`).
    """

    def name(symbol: str) -> str:
        return symbol if shown is None else shown.symbol(symbol)

    def price(symbol: str, micros: int) -> str:
        return micros_to_str(micros if shown is None else shown.price(symbol, micros))

    rejected = (
        [{"answer": answer_reject.reason.value, "detail": answer_reject.detail}]
        if answer_reject is not None
        else [
            {
                "action": r.action,
                "symbol": name(r.symbol),
                "reason_code": r.reason.value if r.reason else None,
                "detail": r.detail if shown is None else "",
            }
            for r in results
            if not r.executed
        ]
    )
    executed = [
        {
            "action": r.action,
            "symbol": name(r.symbol),
            "quantity": micros_to_str(r.fill.qty) if r.fill else None,
            "price": price(r.symbol, r.fill.price) if r.fill else None,
        }
        for r in results
        if r.executed
    ]
    body = {
        "rejected": rejected,
        "executed": executed,
        "budget_left": micros_to_str(budget_left),
    }
    text = (
        "Some of your answer was rejected. This is your one correction: answer again "
        "with only the decisions you still want; a second miss is final. "
        + json.dumps(body, sort_keys=True, separators=(",", ":"))
    )
    return (*first, Message("assistant", raw_answer[:4_000]), Message("user", text))
