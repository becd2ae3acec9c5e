"""The mask of a masked replay: pseudonyms, price factors and day numbers (pure).

A masked replay shows an agent no real ticker, no calendar date and no real
price level, so a model cannot answer from what it remembers of the period.
`draw_mask` draws the season's `MaskTable` from its seed: for each real
symbol a pseudonym and a price factor. The table is an immutable value; every
format's round applies the same transform through it:

* a symbol is shown as its pseudonym (`MaskTable.symbol`) and an answer's
  pseudonym maps back to the real symbol (`MaskTable.real`);
* a price is shown multiplied by the symbol's factor (`MaskTable.price`,
  rounded half-even to the micro-dollar), and a price the agent gives back is
  divided by it (`MaskTable.unprice`): rounded half-even to the instrument's
  tick, one cent unless the caller names another. Weights and directions need
  no mapping of their numbers;
* a time is shown as a day counted from the season's start (`MaskTable.when`:
  ``day 1`` is the start's day), with the time of day kept.

A pseudonym is two letters, a digit, a letter and a digit (``KQ4V7``): no
exchange ticker or crypto symbol of any universe is written so, and the draw
also skips the season's own symbols. Factors lie in [0.25, 4] and never within
10% of 1, as thousandths. The same seed, symbols and start give the same
table, so `verify` can draw it again and compare it with the one recorded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from fractions import Fraction

__all__ = ["MASK_VERSION", "MaskTable", "draw_mask", "mask_from_payload"]

MASK_VERSION = 1
"""The version of the draw and of the table's payload."""

_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"
_DIGITS = "23456789"
_FACTOR_LOW, _FACTOR_HIGH = 250, 4000
"""Factors are k/1000 for k in [250, 4000]."""
_NEAR_ONE = range(900, 1101)
CENT = 10_000
"""One cent in micro-dollars: the default tick of `MaskTable.unprice`."""


def _stream(seed: str, what: str) -> bytes:
    """Return 64 bytes drawn from ``seed`` for ``what`` (SHA-512, no global state)."""
    return hashlib.sha512(f"tradeleague-mask-v{MASK_VERSION}|{seed}|{what}".encode()).digest()


def _pseudonym(seed: str, index: int, attempt: int) -> str:
    b = _stream(seed, f"name|{index}|{attempt}")
    return (
        _LETTERS[b[0] % len(_LETTERS)]
        + _LETTERS[b[1] % len(_LETTERS)]
        + _DIGITS[b[2] % len(_DIGITS)]
        + _LETTERS[b[3] % len(_LETTERS)]
        + _DIGITS[b[4] % len(_DIGITS)]
    )


def _factor(seed: str, symbol: str) -> Fraction:
    attempt = 0
    while True:
        b = _stream(seed, f"factor|{symbol}|{attempt}")
        k = _FACTOR_LOW + int.from_bytes(b[:8], "big") % (_FACTOR_HIGH - _FACTOR_LOW + 1)
        if k not in _NEAR_ONE:
            return Fraction(k, 1000)
        attempt += 1


def _round_half_even(value: Fraction) -> int:
    return round(value)  # Fraction rounds half to even


@dataclass(frozen=True, slots=True)
class MaskTable:
    """A season's mask: each real symbol's pseudonym and factor, and the first day.

    Attributes
    ----------
    seed
        What the table was drawn from (the season's seed).
    start
        The season's first day: ``day 1``.
    names
        Real symbol -> pseudonym.
    factors
        Real symbol -> price factor.
    """

    seed: str
    start: date
    names: Mapping[str, str]
    factors: Mapping[str, Fraction]
    _back: Mapping[str, str] = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        shown = list(self.names.values())
        if len(set(shown)) != len(shown):
            raise ValueError("two symbols share a pseudonym")
        if set(self.names) != set(self.factors):
            raise ValueError("every symbol needs a pseudonym and a factor")
        if any(f <= 0 for f in self.factors.values()):
            raise ValueError("a factor must be positive")
        object.__setattr__(self, "names", dict(sorted(self.names.items())))
        object.__setattr__(self, "factors", dict(sorted(self.factors.items())))
        object.__setattr__(self, "_back", {v: k for k, v in self.names.items()})

    def symbol(self, real: str) -> str:
        """Return the pseudonym of ``real`` (a symbol outside the table raises KeyError)."""
        return self.names[real]

    def real(self, shown: str) -> str:
        """Return the real symbol of pseudonym ``shown`` (KeyError if none)."""
        return self._back[shown]

    def shown(self) -> Mapping[str, str]:
        """Return pseudonym -> real symbol."""
        return self._back

    def shown_symbols(self, reals: Sequence[str]) -> tuple[str, ...]:
        """Return the pseudonyms of ``reals``, sorted by pseudonym (no real order shows)."""
        return tuple(sorted(self.names[s] for s in reals))

    def price(self, real: str, micros: int) -> int:
        """Return ``real``'s price ``micros`` as shown: times its factor, half-even to the micro."""
        return _round_half_even(micros * self.factors[real])

    def unprice(self, real: str, shown_micros: int | Fraction, tick: int = CENT) -> int:
        """Return the real price of a shown price of ``real``.

        The shown price divided by the symbol's factor, rounded half-even to a
        multiple of ``tick`` micro-dollars (one cent unless given).
        """
        exact = Fraction(shown_micros) / self.factors[real]
        return _round_half_even(exact / tick) * tick

    def day(self, when: datetime | date) -> int:
        """Return the day number of ``when``: 1 on the start's day (UTC)."""
        day = when.astimezone(UTC).date() if isinstance(when, datetime) else when
        return (day - self.start).days + 1

    def when(self, at: datetime) -> str:
        """Return ``at`` as shown: ``day N HH:MM UTC``."""
        return f"day {self.day(at)} {at.astimezone(UTC):%H:%M} UTC"

    def to_payload(self) -> dict[str, object]:
        """Return the table as an event payload (canonical: strings, no floats)."""
        return {
            "v": MASK_VERSION,
            "seed": self.seed,
            "start": self.start.isoformat(),
            "symbols": {
                s: {"as": self.names[s], "factor": str(self.factors[s])} for s in self.names
            },
        }


def mask_from_payload(payload: Mapping[str, object]) -> MaskTable:
    """Return the table a ``MaskDrawn`` payload holds.

    Raises
    ------
    ValueError
        If the payload is not a mask table of a known version.
    """
    if payload.get("v") != MASK_VERSION:
        raise ValueError(f"unknown mask version {payload.get('v')!r}")
    symbols = payload.get("symbols")
    seed, start = payload.get("seed"), payload.get("start")
    if not isinstance(symbols, Mapping) or not isinstance(seed, str) or not isinstance(start, str):
        raise ValueError("a mask payload needs seed, start and symbols")
    names: dict[str, str] = {}
    factors: dict[str, Fraction] = {}
    for real, entry in symbols.items():
        if not isinstance(entry, Mapping):
            raise ValueError(f"mask entry of {real!r} is not an object")
        names[str(real)] = str(entry["as"])
        factors[str(real)] = Fraction(str(entry["factor"]))
    return MaskTable(seed=seed, start=date.fromisoformat(start), names=names, factors=factors)


def draw_mask(seed: str, symbols: Sequence[str], start: date) -> MaskTable:
    """Draw the mask of a season from its seed (see the module docstring).

    The symbols are taken in sorted order, so the table does not depend on the
    order they were given in; no pseudonym is one of them.
    """
    reals = sorted(set(symbols))
    taken = {s.upper() for s in reals}
    names: dict[str, str] = {}
    for index, real in enumerate(reals):
        attempt = 0
        name = _pseudonym(seed, index, attempt)
        while name in taken:
            attempt += 1
            name = _pseudonym(seed, index, attempt)
        taken.add(name)
        names[real] = name
    factors = {s: _factor(seed, s) for s in reals}
    return MaskTable(seed=seed, start=start, names=names, factors=factors)
