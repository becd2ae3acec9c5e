"""A scenario's rules: leverage caps, universe, cash, slippage tiers (S-SCN-1, S-FIL-2)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import END, START, SYMBOLS  # type: ignore[import-not-found]
from tradeleague.errors import DataError
from tradeleague.formats.scenario import (
    HIGH_VARIANCE,
    LEVERAGE_CAPS,
    ScenarioConfig,
    default_slippage,
    parse_slippage_overrides,
)
from tradeleague.league.scenario import ScenarioService, provision_from_market
from tradeleague.market import synthetic_dataset
from tradeleague.money import usd

T0 = datetime(2025, 6, 2, tzinfo=UTC)
T1 = datetime(2025, 7, 1, tzinfo=UTC)


def _config(**changes: object) -> ScenarioConfig:
    fields: dict[str, object] = {"name": "cfg", "symbols": ("SPY", "AAPL"), "start": T0, "end": T1}
    fields.update(changes)
    return ScenarioConfig(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("cap", LEVERAGE_CAPS)
def test_the_four_leverage_caps_are_accepted(cap: int) -> None:
    """S-SCN-1: a leverage cap is one of 1, 2, 4, 10; the engine's cap is that number."""
    config = _config(leverage_cap=cap)
    assert config.order_rules().leverage_cap == cap
    assert ScenarioConfig.from_json(config.to_json()) == config


@given(st.integers(-20, 50).filter(lambda n: n not in LEVERAGE_CAPS))
def test_any_other_leverage_cap_is_refused(cap: int) -> None:
    """S-SCN-1: leverage outside {1, 2, 4, 10} is refused with a sentence naming the choices."""
    with pytest.raises(ValueError, match=r"leverage cap .*one of \(1, 2, 4, 10\)"):
        _config(leverage_cap=cap)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"cash": usd(0)}, "starting cash must be positive"),
        ({"cash": usd(-5)}, "starting cash must be positive"),
        ({"symbols": ()}, "one or more distinct symbols"),
        ({"symbols": ("SPY", "SPY")}, "one or more distinct symbols"),
        ({"symbols": ("spy",)}, "upper-case tickers"),
        ({"end": T0}, "end must be after its start"),
        ({"name": "Bad Name"}, "use a-z, 0-9"),
        ({"slippage_bps": {"SPY": 3}}, "must name every symbol"),
    ],
)
def test_invalid_rules_are_refused_with_a_clear_sentence(
    changes: dict[str, object], message: str
) -> None:
    """S-SCN-1: cash > 0, a non-empty distinct universe, a real range, slippage for each symbol."""
    with pytest.raises(ValueError, match=message):
        _config(**changes)


def test_symbols_must_be_in_the_data(service: ScenarioService) -> None:
    """S-SCN-1: the universe is a subset of the market's symbols; others are refused by name."""
    data = synthetic_dataset(len(SYMBOLS), 30, seed=3, symbols=SYMBOLS)
    with pytest.raises((DataError, ValueError), match="NOPE"):
        provision_from_market(service, "missing", data, ["AAPL", "NOPE"], START, END)
    with pytest.raises(ValueError, match="leverage cap 3"):
        provision_from_market(service, "lev", data, ["AAPL"], START, END, leverage_cap=3)
    with pytest.raises(ValueError, match="starting cash must be positive"):
        provision_from_market(service, "cash", data, ["AAPL"], START, END, cash=usd(0))
    assert service.scenarios() == []


def test_default_slippage_tiers() -> None:
    """S-FIL-2: 3 bps for SPY/QQQ/IWM/DIA, 20 bps for high-variance names, 8 bps otherwise."""
    broad = ("SPY", "QQQ", "IWM", "DIA")
    volatile = tuple(sorted(HIGH_VARIANCE))
    plain = ("AAPL", "MSFT", "JPM")
    table = default_slippage(broad + volatile + plain)
    assert {s: table[s] for s in broad} == dict.fromkeys(broad, 3)
    assert {s: table[s] for s in volatile} == dict.fromkeys(volatile, 20)
    assert {s: table[s] for s in plain} == dict.fromkeys(plain, 8)
    assert {"TSLA", "NVDA"} <= HIGH_VARIANCE
    assert _config(symbols=("SPY", "TSLA", "AAPL")).slippage_bps == {
        "AAPL": 8,
        "SPY": 3,
        "TSLA": 20,
    }


def test_slippage_overrides_win_and_are_checked() -> None:
    """S-FIL-2: a scenario may override any symbol with ``--slippage SYM=BPS``; bad items fail."""
    overrides = parse_slippage_overrides(["tsla=25", "SPY = 1"])
    assert overrides == {"TSLA": 25, "SPY": 1}
    table = default_slippage(("SPY", "TSLA", "AAPL"), overrides)
    assert table == {"AAPL": 8, "SPY": 1, "TSLA": 25}
    for bad in ("TSLA", "TSLA=", "=5", "TSLA=2.5", "TSLA=-1"):
        with pytest.raises(ValueError, match="write SYMBOL=BPS"):
            parse_slippage_overrides([bad])
    with pytest.raises(ValueError, match="outside the universe"):
        default_slippage(("SPY",), {"TSLA": 5})


def test_provisioned_slippage_is_frozen_into_the_version(service: ScenarioService) -> None:
    """S-FIL-2, S-SCN-2: tiers resolve at provisioning, overrides included, and travel with it."""
    data = synthetic_dataset(len(SYMBOLS), 30, seed=3, symbols=SYMBOLS)
    scenario = provision_from_market(
        service, "slip", data, SYMBOLS, START, END, slippage={"AAPL": 11}
    )
    assert scenario.config.slippage_bps == {"AAPL": 11, "SPY": 3, "TSLA": 20}
    assert scenario.view()["slippage_bps"] == {"AAPL": 11, "SPY": 3, "TSLA": 20}
    assert scenario.config.price_slippage().bps_for("TSLA") == 20
