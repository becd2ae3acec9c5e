"""Reference prices, halts, holds and the market's status (W-PX-2, W-PX-4, W-MKT, W-HOLD)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tradeleague.formats.weights import (
    LEAGUE_PAUSED,
    ClosedReason,
    FeedReading,
    HaltReason,
    PreviousRound,
    PriceInvalid,
    WeightsPreset,
    assess_market,
    check_price,
    moved_too_far,
    reference_price,
)
from tradeleague.money import usd

NOW = datetime(2026, 10, 6, 15, 2, tzinfo=UTC)
P = WeightsPreset()


def read(symbol: str = "SPY", answer: int | None = 650_00000000, **kw: object) -> FeedReading:
    fields: dict[str, object] = {"decimals": 8, "updated_at": NOW - timedelta(minutes=30)}
    fields.update(kw)
    return FeedReading(symbol=symbol, answer=answer, **fields)  # type: ignore[arg-type]


def test_reference_price_is_one_token() -> None:
    """W-PX-2: price of one token = share price x the token's multiplier."""
    assert reference_price(100_00000000, 8, (1, 1)) == usd(100)
    assert reference_price(100_00000000, 8, (1_02, 1_00)) == usd(102)
    check = check_price(read(multiplier=(3, 2)), 8, NOW, P)
    assert check.price == usd(975)


@pytest.mark.parametrize(
    ("reading", "reason"),
    [
        (read(answer=None), PriceInvalid.UNREADABLE),
        (read(answer=0), PriceInvalid.NOT_POSITIVE),
        (read(answer=-5), PriceInvalid.NOT_POSITIVE),
        (read(answer=999_999), PriceInvalid.BELOW_MINIMUM),
        (read(updated_at=None), PriceInvalid.NO_UPDATE_TIME),
        (read(updated_at=NOW + timedelta(seconds=301)), PriceInvalid.FUTURE_UPDATE_TIME),
        (read(decimals=18), PriceInvalid.DECIMALS_CHANGED),
        (read(answer=2**53), PriceInvalid.TOO_LARGE),
    ],
)
def test_every_invalid_case(reading: FeedReading, reason: PriceInvalid) -> None:
    """W-PX-4: each way a read is not valid, with its reason."""
    check = check_price(reading, 8, NOW, P)
    assert not check.valid
    assert check.invalid is reason
    assert check.price is None


@pytest.mark.parametrize(
    ("reading", "reason"),
    [
        # below a cent AND each later check: "below 0.01 USD" is the third check
        (read(answer=999_999, updated_at=None), PriceInvalid.BELOW_MINIMUM),
        (
            read(answer=999_999, updated_at=NOW + timedelta(minutes=6)),
            PriceInvalid.BELOW_MINIMUM,
        ),
        (read(answer=999_999, decimals=18), PriceInvalid.BELOW_MINIMUM),
        # zero AND below a cent: zero or negative comes first
        (read(answer=0, updated_at=None), PriceInvalid.NOT_POSITIVE),
        # no update time AND in the future cannot both hold; no time AND other decimals
        (read(updated_at=None, decimals=18), PriceInvalid.NO_UPDATE_TIME),
        (
            read(updated_at=NOW + timedelta(minutes=6), answer=2**53),
            PriceInvalid.FUTURE_UPDATE_TIME,
        ),
        (read(decimals=9, answer=2**53), PriceInvalid.DECIMALS_CHANGED),
    ],
)
def test_first_failing_check_in_spec_order(reading: FeedReading, reason: PriceInvalid) -> None:
    """W-PX-4: a read failing two checks gets the reason of the first in the SPEC's order:
    could not be read; zero or negative; below 0.01 USD; no update time; more than 5 minutes
    in the future; other decimals than on record; too large to compute exactly."""
    check = check_price(reading, 8, NOW, P)
    assert (check.price, check.invalid) == (None, reason)


def test_reason_codes_are_listed_in_spec_order() -> None:
    """W-PX-4: ``PriceInvalid`` lists the reasons in the order they are checked."""
    assert [r.value for r in PriceInvalid] == [
        "unreadable",
        "not_positive",
        "below_minimum",
        "no_update_time",
        "future_update_time",
        "decimals_changed",
        "too_large",
    ]


def test_valid_boundaries() -> None:
    """W-PX-4: exactly 0.01 USD and exactly five minutes ahead are still valid."""
    assert check_price(read(answer=1_000_000), 8, NOW, P).price == usd("0.01")
    ahead = read(updated_at=NOW + timedelta(minutes=5))
    assert check_price(ahead, 8, NOW, P).valid
    assert check_price(read(answer=2**53 - 1), 8, NOW, P).valid


def universe(**overrides: FeedReading) -> dict[str, FeedReading]:
    base = {s: read(s) for s in ("AAPL", "QQQ", "SGOV", "SPY", "USO")}
    base.update(overrides)
    return base


DEC = dict.fromkeys(("AAPL", "QQQ", "SGOV", "SPY", "USO"), 8)


def test_open_market() -> None:
    """W-MKT-2: a fresh node, valid prices, no halts and a recent update: open."""
    m = assess_market(universe(), DEC, NOW, NOW - timedelta(seconds=12), P)
    assert m.open
    assert m.status_text == "Market open"
    assert not m.halted


def test_halts_with_reasons() -> None:
    """W-MKT-1: stale over 25 hours, paused, paused unreadable; halted keep the last price."""
    reads = universe(
        AAPL=read("AAPL", updated_at=NOW - timedelta(hours=25, seconds=1)),
        QQQ=read("QQQ", paused=True),
    )
    last = {"AAPL": usd(200), "QQQ": usd(500)}
    m = assess_market(reads, DEC, NOW, NOW, P, last_accepted=last)
    assert m.halted == {"AAPL": (HaltReason.STALE,), "QQQ": (HaltReason.PAUSED,)}
    assert m.prices["AAPL"] == usd(200)
    assert m.prices["QQQ"] == usd(500)
    assert m.prices["SPY"] == usd(650)
    assert m.open
    m2 = assess_market(universe(USO=read("USO", paused=None)), DEC, NOW, NOW, P)
    assert m2.halted == {"USO": (HaltReason.PAUSED_UNREADABLE,)}


def test_stale_boundary() -> None:
    """W-MKT-1: exactly 25 hours old is not yet halted."""
    reads = universe(AAPL=read("AAPL", updated_at=NOW - timedelta(hours=25)))
    assert not assess_market(reads, DEC, NOW, NOW, P).halted


@pytest.mark.parametrize(
    ("block", "reason"),
    [(None, ClosedReason.NODE_UNREACHABLE), (NOW - timedelta(minutes=6), ClosedReason.NODE_STALE)],
)
def test_closed_by_node(block: datetime | None, reason: ClosedReason) -> None:
    """W-MKT-2: prices must come from a node whose latest block is at most 5 minutes old."""
    m = assess_market(universe(), DEC, NOW, block, P)
    assert not m.open
    assert m.closed == (reason,)


def test_closed_by_invalid_price() -> None:
    """W-MKT-2: every feed must return a valid price; the site says why."""
    m = assess_market(universe(SPY=read("SPY", answer=0)), DEC, NOW, NOW, P)
    assert m.closed == (ClosedReason.INVALID_PRICE,)
    assert m.invalid == {"SPY": "not_positive"}
    assert "invalid_price" in m.status_text


def test_closed_by_three_halts() -> None:
    """W-MKT-2: at most two symbols halted."""
    reads = universe(**{s: read(s, paused=True) for s in ("AAPL", "QQQ", "SGOV")})
    m = assess_market(reads, DEC, NOW, NOW, P)
    assert m.closed == (ClosedReason.TOO_MANY_HALTED,)
    two = universe(**{s: read(s, paused=True) for s in ("AAPL", "QQQ")})
    assert assess_market(two, DEC, NOW, NOW, P).open


def test_closed_without_recent_update() -> None:
    """W-MKT-2: at least one feed published in the last 3 hours (weekends close)."""
    old = NOW - timedelta(hours=3, seconds=1)
    reads = {s: read(s, updated_at=old) for s in DEC}
    m = assess_market(reads, DEC, NOW, NOW, P)
    assert m.closed == (ClosedReason.NO_RECENT_UPDATE,)


def test_hold_on_a_big_move() -> None:
    """W-HOLD-1: a move of more than 30% from the latest round's price puts a hold."""
    assert moved_too_far(100, 130, P) is False
    assert moved_too_far(100, 69, P) is True
    prev = PreviousRound(prices={"SPY": usd(400)})
    m = assess_market(universe(), DEC, NOW, NOW, P, previous=prev, last_accepted=prev.prices)
    assert [h.symbol for h in m.new_holds] == ["SPY"]
    assert m.halted["SPY"] == (HaltReason.HOLD,)
    assert m.prices["SPY"] == usd(400)


def test_no_hold_when_halted_in_latest_round() -> None:
    """W-HOLD-1: a symbol halted in the latest round is not compared."""
    prev = PreviousRound(prices={"SPY": usd(400)}, halted={"SPY"})
    m = assess_market(universe(), DEC, NOW, NOW, P, previous=prev)
    assert not m.new_holds
    assert not m.halted


def test_hold_lasts_until_released() -> None:
    """W-HOLD-2: a hold in force keeps the symbol halted whatever the price."""
    m = assess_market(universe(), DEC, NOW, NOW, P, holds={"SPY"}, last_accepted={"SPY": usd(1)})
    assert m.halted["SPY"] == (HaltReason.HOLD,)
    assert m.prices["SPY"] == usd(1)
    released = assess_market(universe(), DEC, NOW, NOW, P, last_accepted={"SPY": usd(1)})
    assert released.prices["SPY"] == usd(650)


def test_league_paused() -> None:
    """W-HOLD-3: holds that leave more than two symbols halted close the market: League paused."""
    m = assess_market(universe(), DEC, NOW, NOW, P, holds={"AAPL", "QQQ", "SGOV"})
    assert m.closed == (ClosedReason.LEAGUE_PAUSED,)
    assert m.status_text == LEAGUE_PAUSED
