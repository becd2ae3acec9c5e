"""What a model call costs: a configurable price table, exact to the micro-dollar (C-5).

Prices are USD per million tokens, given as decimal strings (``"0.15"``) and held
as integer micro-dollars per million tokens. The cost of one call is

    ceil((prompt_tokens * input_price + completion_tokens * output_price) / 1,000,000)

micro-dollars: one exact division, rounded up (a cost, SPEC W-EXE-7).

A table is read from a TOML file (``--prices FILE`` on a replay, ``prices`` in
the league file), keyed by the model id the agent spec names::

    pricing_version = "2026-12-01"
    [models."gpt-4o-mini"]
    input_per_million = 0.15
    output_per_million = 0.60

The numbers are read as decimals, never as binary floats, so 0.15 is exactly
150,000 micro-dollars per million tokens. The older JSON form
(``{"model": {"input": "0.15", "output": "0.60"}}``) is still read from a
``.json`` file.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

from tradeleague.errors import ConfigError
from tradeleague.money import Rounding, Usd, div_round, parse_micros

__all__ = ["Price", "PriceTable", "call_cost"]

TOKENS_PER_PRICE_UNIT = 1_000_000
"""Prices are quoted per this many tokens."""
_MAX_CHARS = 1_000_000
"""A price table longer than this is refused unread (it comes from outside)."""


@dataclass(frozen=True, slots=True)
class Price:
    """The price of one model, in micro-dollars per million tokens."""

    input_micros_per_m: int
    output_micros_per_m: int

    def __post_init__(self) -> None:
        if self.input_micros_per_m < 0 or self.output_micros_per_m < 0:
            raise ConfigError("a token price cannot be negative")

    @classmethod
    def usd_per_million(
        cls, input_usd: str | Decimal | int, output_usd: str | Decimal | int
    ) -> Price:
        """Build a price from USD per million input and output tokens (``"0.15"``, ``"0.6"``).

        Raises
        ------
        ConfigError
            If a price has more than six decimal places or is not a number.
        """
        try:
            return cls(
                parse_micros(input_usd, what="input price"),
                parse_micros(output_usd, what="output price"),
            )
        except (TypeError, ValueError, ArithmeticError) as exc:
            raise ConfigError(f"bad price: {exc}") from exc

    def cost(self, prompt_tokens: int, completion_tokens: int) -> Usd:
        """Return the exact cost of a call in micro-dollars, rounded up."""
        if prompt_tokens < 0 or completion_tokens < 0:
            raise ValueError("token counts cannot be negative")
        numerator = (
            prompt_tokens * self.input_micros_per_m + completion_tokens * self.output_micros_per_m
        )
        return Usd(div_round(numerator, TOKENS_PER_PRICE_UNIT, Rounding.UP))


@dataclass(frozen=True, slots=True)
class PriceTable:
    """Prices by model id; a model not listed has no known price.

    ``version`` is the table's ``pricing_version`` (``None`` for the JSON form):
    the reports name it beside every cost.
    """

    prices: Mapping[str, Price] = field(default_factory=lambda: MappingProxyType({}))
    version: str | None = None

    def get(self, model: str) -> Price | None:
        """Return the price of ``model``, or ``None`` if it is not listed."""
        return self.prices.get(model)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Mapping[str, Any]]) -> PriceTable:
        """Build a table from ``{model: {"input": "0.15", "output": "0.60"}}``.

        Raises
        ------
        ConfigError
            On a missing or unknown key, or a bad price.
        """
        prices: dict[str, Price] = {}
        for model, entry in data.items():
            if set(entry) != {"input", "output"}:
                raise ConfigError(
                    f"price of {model!r} must have exactly the keys 'input' and 'output' "
                    f"(USD per million tokens), got {sorted(entry)}"
                )
            for side in ("input", "output"):
                if isinstance(entry[side], float):
                    raise ConfigError(f"price of {model!r}: write {side} as a string, not a float")
            prices[model] = Price.usd_per_million(entry["input"], entry["output"])
        return cls(MappingProxyType(prices))

    @classmethod
    def from_toml(cls, text: str, *, where: str = "price table") -> PriceTable:
        """Build a table from the TOML form (``pricing_version`` and ``[models."ID"]``).

        Raises
        ------
        ConfigError
            On a TOML error, an unknown or missing key, or a bad price.
        """
        try:
            data = tomllib.loads(text, parse_float=Decimal)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{where} is not valid TOML: {exc}") from exc
        unknown = sorted(set(data) - {"pricing_version", "models"})
        if unknown:
            raise ConfigError(
                f"{where}: unknown key {unknown[0]!r}; "
                'write pricing_version and one [models."ID"] table per model'
            )
        version = data.get("pricing_version")
        if not isinstance(version, str) or not version.strip():
            raise ConfigError(f'{where}: add pricing_version = "YYYY-MM-DD" (the prices\' date)')
        models = data.get("models", {})
        if not isinstance(models, dict):
            raise ConfigError(f'{where}: models must be tables, as [models."gpt-4o-mini"]')
        prices: dict[str, Price] = {}
        for model, entry in models.items():
            sides = {"input_per_million", "output_per_million"}
            if not isinstance(entry, dict) or set(entry) != sides:
                got = sorted(entry) if isinstance(entry, dict) else entry
                raise ConfigError(
                    f"{where}: [models.{json.dumps(model)}] must have exactly "
                    f"input_per_million and output_per_million (USD), got {got}"
                )
            for side in sorted(sides):
                if isinstance(entry[side], bool) or not isinstance(entry[side], (int, Decimal)):
                    raise ConfigError(f"{where}: {model} {side} must be a number of USD")
            try:
                prices[model] = Price.usd_per_million(
                    entry["input_per_million"], entry["output_per_million"]
                )
            except ConfigError as exc:
                raise ConfigError(f"{where}: {model}: {exc}") from exc
        return cls(MappingProxyType(prices), version.strip())

    @classmethod
    def from_file(cls, path: Path) -> PriceTable:
        """Load a table from a TOML file, or from the JSON form if it ends in ``.json``.

        Raises
        ------
        ConfigError
            If the file cannot be read or holds a bad table (JSON floats are
            refused: quote the prices).
        """
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read price table {path}: {exc}") from exc
        if len(text) > _MAX_CHARS:
            raise ConfigError(f"price table {path} is over {_MAX_CHARS:,} characters")
        if path.suffix.lower() != ".json":
            return cls.from_toml(text, where=f"price table {path}")
        try:
            data = json.loads(text, parse_float=Decimal)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"cannot read price table {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"price table {path} must hold a JSON object")
        return cls.from_mapping(data)


def call_cost(
    price: Price | None, prompt_tokens: int | None, completion_tokens: int | None, *, answered: bool
) -> Usd | None:
    """Return the cost of one call, or ``None`` where it cannot be known.

    A call that did not answer and reported no usage costs 0 (providers do not
    bill failed calls); an answered call without usage, or a model without a
    price, has an unknown (``None``) cost.
    """
    if price is None:
        return None
    if prompt_tokens is None and completion_tokens is None:
        return None if answered else Usd(0)
    return price.cost(prompt_tokens or 0, completion_tokens or 0)
