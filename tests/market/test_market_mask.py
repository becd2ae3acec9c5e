"""The mask table of a masked replay: drawn from the seed, exact, and mapped back exactly."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.market.mask import CENT, MaskTable, draw_mask, mask_from_payload

ROOT = Path(__file__).resolve().parents[2]
THESIS_UNIVERSE = ROOT / "src" / "tradeleague" / "formats" / "thesis" / "universe.json"


def _tickers() -> set[str]:
    """Every ticker a shipped universe or bar folder names."""
    universe = json.loads(THESIS_UNIVERSE.read_text(encoding="utf-8"))
    names = {*universe["crypto"], *universe["stocks"], *universe["benchmarks"].values()}
    data = ROOT.parent.parent / "shared" / "data"
    for folder in data.glob("*") if data.is_dir() else []:
        names |= {p.name.split(".")[0] for p in folder.glob("*.csv*")}
    return names | {"BTC", "ETH", "SPY", "QQQ", "SGOV", "USO", "BTCUSDT"}


def test_the_same_seed_draws_the_same_table_and_another_seed_another() -> None:
    symbols = ["NVDA", "AAPL", "MSFT"]
    one = draw_mask("season-1", symbols, date(2024, 6, 3))
    assert one == draw_mask("season-1", list(reversed(symbols)), date(2024, 6, 3))
    other = draw_mask("season-2", symbols, date(2024, 6, 3))
    assert other.names != one.names
    assert other.factors != one.factors
    assert mask_from_payload(json.loads(json.dumps(one.to_payload()))) == one


def test_no_pseudonym_is_a_ticker_of_any_universe_and_none_repeats() -> None:
    tickers = _tickers()
    table = draw_mask("every-universe", sorted(tickers), date(2025, 1, 2))
    shown = list(table.names.values())
    assert len(set(shown)) == len(shown) == len(tickers)
    assert not set(shown) & tickers
    assert all(Fraction(1, 4) <= f <= 4 and not Fraction(9, 10) <= f <= Fraction(11, 10)
               for f in table.factors.values())  # fmt: skip


def test_days_count_from_the_start_and_times_keep_their_hour() -> None:
    table = draw_mask("s", ["AAPL"], date(2024, 6, 3))
    assert table.day(date(2024, 6, 3)) == 1
    assert table.when(datetime(2024, 6, 14, 15, 30, tzinfo=UTC)) == "day 12 15:30 UTC"


def test_unprice_divides_by_the_factor_half_even_to_the_cent() -> None:
    table = MaskTable(
        seed="s", start=date(2024, 1, 1), names={"X": "KQ4V7"}, factors={"X": Fraction(2)}
    )
    assert table.price("X", 1_234_567) == 2_469_134
    assert table.unprice("X", 2_469_134) == 1_230_000  # 1.234567 -> 1.23
    assert table.unprice("X", 30_000) == 20_000  # 0.015 -> 0.02 (half to even)
    assert table.unprice("X", 50_000) == 20_000  # 0.025 -> 0.02 (half to even)
    assert table.unprice("X", 12_345, tick=1) == 6_172  # 6172.5 micros -> 6172


@given(st.integers(min_value=CENT, max_value=10**13), st.text(min_size=1, max_size=8))
def test_a_shown_price_maps_back_to_the_real_one_to_the_cent(micros: int, seed: str) -> None:
    table = draw_mask(seed, ["X"], date(2024, 1, 1))
    real = micros - micros % CENT
    assert table.unprice("X", table.price("X", real)) == real


def test_a_table_refuses_two_symbols_on_one_pseudonym() -> None:
    with pytest.raises(ValueError, match="share a pseudonym"):
        MaskTable(
            seed="s",
            start=date(2024, 1, 1),
            names={"A": "KQ4V7", "B": "KQ4V7"},
            factors={"A": Fraction(2), "B": Fraction(3)},
        )
