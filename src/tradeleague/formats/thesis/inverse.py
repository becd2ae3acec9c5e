"""The inverse meta-agent's rule in the thesis league (SPEC T-AGT-1): long <-> short.

Each ``open_long`` becomes ``open_short`` and back; an invalidation price is
mirrored about the current price (``2 x price - level``; half the price when
that is not positive), so the mirror's level is as far on the losing side as
the source's. Closes, holds and adds keep their action (they refer to the
mirror's own positions). An answer that is not a JSON object is passed through
unchanged, so the validator rejects it as it rejects the source's (C-6).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

from tradeleague.untrusted import UntrustedJSON, loads

__all__ = ["invert_thesis_answer"]

_SWAP = {"open_long": "open_short", "open_short": "open_long"}


def _mirror(level: object, price: str | None) -> object:
    if price is None or isinstance(level, bool):
        return level
    try:
        p, lv = Decimal(price), Decimal(str(level))
    except InvalidOperation:
        return level
    out = 2 * p - lv
    if out <= 0:
        out = p / 2
    return str(out.quantize(Decimal("0.000001")))


def invert_thesis_answer(text: str, prices: Mapping[str, str]) -> str | None:
    """Return ``text`` with its opens' sides swapped, or ``None`` when it is not an answer."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        data = loads(body, max_depth=16)
    except UntrustedJSON:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("decisions"), list):
        return None
    for d in data["decisions"]:
        if not isinstance(d, dict) or d.get("action") not in _SWAP:
            continue
        d["action"] = _SWAP[str(d["action"])]
        symbol = d.get("symbol")
        key = symbol.strip().upper() if isinstance(symbol, str) else ""
        if "invalidation_price" in d:
            d["invalidation_price"] = _mirror(d["invalidation_price"], prices.get(key))
    return json.dumps(data, sort_keys=True)
