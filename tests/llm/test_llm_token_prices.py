"""The cost of a call, exact to the micro-dollar and rounded up (C-5, W-EXE-7)."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.errors import ConfigError
from tradeleague.llm.token_prices import Price, PriceTable, call_cost


def test_known_costs() -> None:
    """C-5: $0.15 / $0.60 per million tokens, worked by hand."""
    price = Price.usd_per_million("0.15", "0.60")
    assert (price.input_micros_per_m, price.output_micros_per_m) == (150_000, 600_000)
    # 1,000 x 0.15 + 300 x 0.60 = 330,000,000 micro-dollar-tokens / 1e6 = 330 micro-dollars
    assert price.cost(1_000, 300) == 330
    # 1 x 0.15 micro... = 0.15 micro-dollars: rounded up to 1, never to 0
    assert price.cost(1, 0) == 1
    assert price.cost(0, 0) == 0
    assert Price.usd_per_million("3", "15").cost(2_000_000, 1_000_000) == 21_000_000


@given(
    input_micros=st.integers(0, 10**9),
    output_micros=st.integers(0, 10**9),
    prompt=st.integers(0, 10**7),
    completion=st.integers(0, 10**7),
)
def test_cost_is_the_exact_ceiling(
    input_micros: int, output_micros: int, prompt: int, completion: int
) -> None:
    """W-EXE-7: the cost is the ceiling of the exact rational cost, never less."""
    exact = Fraction(prompt * input_micros + completion * output_micros, 1_000_000)
    cost = Price(input_micros, output_micros).cost(prompt, completion)
    assert cost >= exact
    assert cost - exact < 1


def test_table_from_mapping_and_file(tmp_path: Path) -> None:
    """C-5: the table is configuration; floats are refused, decimals kept exact."""
    table = PriceTable.from_mapping({"m": {"input": "0.000001", "output": "2"}})
    assert table.get("m") == Price(1, 2_000_000)
    assert table.get("other") is None
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"m": {"input": "1.25", "output": "10"}}))
    assert PriceTable.from_file(path).get("m") == Price(1_250_000, 10_000_000)
    path.write_text('{"m": {"input": 0.1, "output": 0.3}}')
    assert PriceTable.from_file(path).get("m") == Price(100_000, 300_000)


@pytest.mark.parametrize(
    "entry",
    [
        {"input": 0.1, "output": "1"},
        {"input": "0.0000001", "output": "1"},
        {"input": "1"},
        {"input": "1", "output": "1", "cached": "0.5"},
        {"input": "-1", "output": "1"},
        {"input": "abc", "output": "1"},
    ],
)
def test_bad_prices_are_config_errors(entry: dict[str, object]) -> None:
    """C-5: a price that is not an exact, non-negative decimal is refused, never rounded."""
    with pytest.raises(ConfigError):
        PriceTable.from_mapping({"m": entry})


def test_cost_of_failed_and_unpriced_calls() -> None:
    """C-5: failed calls without usage cost 0; unknown price or usage is unknown (None)."""
    price = Price(1_000_000, 1_000_000)
    assert call_cost(price, None, None, answered=False) == 0
    assert call_cost(price, None, None, answered=True) is None
    assert call_cost(None, 10, 10, answered=True) is None
    assert call_cost(price, 10, None, answered=True) == 10


def test_table_from_toml_reads_decimals_exactly_and_names_its_version(tmp_path: Path) -> None:
    """C-5: the TOML form's numbers are decimals (0.15 is exactly 150,000 per million)."""
    path = tmp_path / "prices.toml"
    path.write_text(
        'pricing_version = "2026-12-01"\n'
        '[models."gpt-4o-mini"]\ninput_per_million = 0.15\noutput_per_million = 0.60\n'
        '[models."openai/gpt-4o"]\ninput_per_million = 2.5\noutput_per_million = 10\n',
        encoding="utf-8",
    )
    table = PriceTable.from_file(path)
    assert table.version == "2026-12-01"
    assert table.get("gpt-4o-mini") == Price(150_000, 600_000)
    assert table.get("openai/gpt-4o") == Price(2_500_000, 10_000_000)
    assert call_cost(table.get("gpt-4o-mini"), 1_234, 56, answered=True) == 219  # 218.7 up


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[models.m]\ninput_per_million = 1\noutput_per_million = 1\n", "pricing_version"),
        ('pricing_version = "v"\n[models.m]\ninput_per_million = 1\n', "exactly"),
        ('pricing_version = "v"\n[models.m]\ninput_per_million = "1"\noutput_per_million = 1\n',
         "must be a number"),
        ('pricing_version = "v"\n[models.m]\ninput_per_million = -1\noutput_per_million = 1\n',
         "cannot be negative"),
        ('pricing_version = "v"\n[models.m]\ninput_per_million = 0.0000001\n'
         "output_per_million = 1\n", "m:"),
        ('pricing_version = "v"\nprice = 1\n', "unknown key 'price'"),
        ("pricing_version = \n", "not valid TOML"),
    ],
)  # fmt: skip
def test_a_bad_toml_table_is_refused_in_one_sentence(text: str, says: str, tmp_path: Path) -> None:
    """The table comes from outside: every mistake is a ConfigError that names the fix."""
    path = tmp_path / "prices.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(says)):
        PriceTable.from_file(path)


def test_the_shipped_example_table_reads() -> None:
    """The example beside the league files is a valid table, as its comment says."""
    example = Path(__file__).resolve().parents[2] / "examples" / "prices" / "example.toml"
    table = PriceTable.from_file(example)
    assert table.version == "2026-12-01"
    assert table.get("gpt-4o-mini") == Price(150_000, 600_000)
