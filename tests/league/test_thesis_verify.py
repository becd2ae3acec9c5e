"""``verify`` rebuilds every thesis portfolio from events, and finds one edited (issue 14, C-4).

A short thesis replay opens a position, has one closed by the monitor, and
lets a baseline buy the universe. The stored ``portfolio`` projection must
hold each agent's book exactly as the league played it (decisions and monitor
closes alike are ``OrderFilled`` events), and an edit to one stored portfolio
must be reported by ``verify`` at its key. The same replay's REPORT.json
carries the monitor's close and each fill's fee with the fields issue 14 names.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import ROUND_CEILING, Decimal
from pathlib import Path

import sqlalchemy as sa
from test_thesis_replay import (  # type: ignore[import-not-found]
    EMPTY,
    Spy,
    _answer,
    _baseline,
    _breaking_cycle,
    _entr,
    _open,
    _run,
    tape,
)

from tradeleague.events import thesis as tev
from tradeleague.formats.thesis.picture import MarketTape
from tradeleague.league.thesis.report import build_report
from tradeleague.money import micros_to_str
from tradeleague.store import open_store, verify
from tradeleague.store.portfolio import PORTFOLIO, account_key
from tradeleague.store.schema import projections

__all__ = ["tape"]  # the module-scoped fixture, shared with the replay tests


def test_verify_rebuilds_every_thesis_portfolio_and_finds_an_edit_c_4(
    tmp_path: Path, tape: MarketTape
) -> None:
    """C-4: the projection equals each book the league played; an edited one is found."""
    cycle, price = _breaking_cycle(tape, falls=True)
    stopped = Spy("stopped", [*[EMPTY] * cycle, _answer(_open("ETH", price - 1))])
    url = f"sqlite:///{tmp_path / 'v.db'}"
    roster = [(_entr("stopped"), stopped), (_entr("hold", "baseline"), _baseline("buy_and_hold"))]
    state = _run(url, tape, roster, end=date(2025, 3, 8))
    assert [c["agent"] for c in state.monitor_closes] == ["stopped"]
    stream = tev.season_stream("s")
    with open_store(url) as store:
        store.refresh_projections()
        stored = store.projection_states(PORTFOLIO)
        for name in ("stopped", "hold"):
            book = state.agents[name].book.portfolio.state()
            assert stored[account_key(stream, name)] == book, name
        assert state.agents["hold"].book.portfolio.positions  # the fold is not vacuous
        assert verify(store).ok
        key = account_key(stream, "hold")
        forged = dict(stored[key])  # type: ignore[call-overload]
        forged["cash"] = str(int(str(forged["cash"])) + 1_000_000)
        with store.engine.begin() as conn:
            conn.execute(
                sa.update(projections)
                .where(projections.c.name == PORTFOLIO, projections.c.key == key)
                .values(state=json.dumps(forged, sort_keys=True, separators=(",", ":")))
            )
        report = verify(store)
    assert not report.ok
    assert [(m.check, m.projection, m.key) for m in report.mismatches] == [
        ("projection_state", PORTFOLIO, key)
    ]

    # T-MON-1, T-CYC-10: REPORT.json names the close and each fill's fee, symbols normalised
    built = {a["name"]: a for a in build_report(state, None)["agents"]}  # type: ignore[attr-defined]
    (close,) = state.monitor_closes
    assert built["stopped"]["monitor_closes"] == [
        {
            "time": close["time"],
            "symbol": "ETH",
            "level": micros_to_str(price - 1),
            "price": micros_to_str(int(close["price"])),
            "quantity": micros_to_str(int(close["quantity"])),
            "fee": micros_to_str(int(close["fee"])),
        }
    ]
    assert built["hold"]["monitor_closes"] == []
    opened = next(e for e in built["stopped"]["entries"] if e["decisions"])["decisions"][0]
    assert (opened["symbol"], opened["status"]) == ("ETH", "executed")
    value = Decimal(opened["quantity"]) * Decimal(opened["price"])
    assert Decimal(opened["fee"]) == (value / 1000).quantize(Decimal("0.000001"), ROUND_CEILING)
