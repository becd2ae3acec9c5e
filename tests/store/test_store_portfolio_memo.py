"""The portfolio projection folds a state it returned as it folds the same state read back (C-4).

The projector keeps the portfolio behind each state it returned, so the next
fill of that account skips rebuilding it; a state loaded from the store (a
fresh object) is rebuilt as before. Over random fills both ways give the same
states, and a state this projector did not return is read as it is.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from tradeleague.events import Event
from tradeleague.money import qty, usd
from tradeleague.sim import Fill, Side
from tradeleague.store import account_opened, order_filled
from tradeleague.store.portfolio import PortfolioProjector

T0 = datetime(2026, 1, 5, 15, 0, tzinfo=UTC)
_fills = st.lists(
    st.tuples(
        st.sampled_from(["AAPL", "MSFT", "SPY"]),
        st.integers(min_value=1, max_value=50),
        st.integers(min_value=1, max_value=300),
    ),
    max_size=12,
)


def _events(fills: list[tuple[str, int, int]]) -> list[Event]:
    out: list[Event] = [account_opened("s", "alice", usd(1_000_000), T0)]
    held: dict[str, int] = {}
    for symbol, n, price in fills:
        side = Side.SELL if held.get(symbol, 0) >= n else Side.BUY
        held[symbol] = held.get(symbol, 0) + (n if side is Side.BUY else -n)
        out.append(order_filled("s", "alice", Fill.at(symbol, side, qty(n), usd(price)), T0))
    return out


@given(_fills)
def test_kept_and_reloaded_states_fold_alike(fills: list[tuple[str, int, int]]) -> None:
    """Passing the returned state back equals passing it as read back from JSON."""
    kept, reloaded = PortfolioProjector(), PortfolioProjector()
    a: object = None
    b: object = None
    for event in _events(fills):
        a = kept.apply(a, event)
        b = reloaded.apply(None if b is None else json.loads(json.dumps(b)), event)
        assert a == b


def test_a_state_it_did_not_return_is_rebuilt_not_remembered() -> None:
    """A state other than the one returned (read back, or made elsewhere) is read as it is."""
    projector = PortfolioProjector()
    opened, buy = _events([("AAPL", 10, 100)])
    state = projector.apply(None, opened)
    assert isinstance(state, dict)
    changed = {"cash": "5000000", "positions": {}}
    after = projector.apply(changed, buy)
    assert after == {"cash": str(5_000_000 - 1000 * 10**6), "positions": {"AAPL": "10000000"}}


@given(_fills)
def test_a_recorded_fill_is_the_fill_its_payload_parses_to_and_is_not_parsed_again(
    fills: list[tuple[str, int, int]],
) -> None:
    """C-4: ``order_filled`` hands its fill to the folds; it is exactly what the payload holds.

    Each fill kept for an event's payload equals ``Fill.from_payload`` of that
    payload (so the shortcut changes nothing), and folding the events parses
    no fill.
    """
    from tradeleague.sim import accounts

    accounts._PARSED.clear()  # room for every fill here (a full memo starts over)
    events = _events(fills)
    for event in events[1:]:
        recorded = event.payload_view["fill"]
        assert isinstance(recorded, dict)
        kept = accounts._PARSED[id(recorded)]
        assert kept[0] is recorded
        assert kept[1] == Fill.from_payload(recorded)
    parsed: list[object] = []
    real = Fill.from_payload

    def counting(payload: dict[str, object]) -> Fill:
        parsed.append(payload)
        return real(payload)

    try:
        Fill.from_payload = counting  # type: ignore[method-assign]
        state: object = None
        projector = PortfolioProjector()
        for event in events:
            state = projector.apply(state, event)
    finally:
        Fill.from_payload = real  # type: ignore[method-assign]
    assert parsed == []
