"""The one account fold: ``AccountOpened``/``OrderFilled`` payloads into a `Portfolio` (C-4).

The store's ``portfolio`` projection, the weights season state and the weights
entries projection all fold accounts through `fold_account`; here is what it
does with good and with malformed payloads.
"""

from __future__ import annotations

import pytest

from tradeleague.events import EventKind
from tradeleague.money import qty, usd
from tradeleague.sim import Fill, Portfolio, Side, fold_account
from tradeleague.sim.errors import PayloadError

OPEN = EventKind.ACCOUNT_OPENED
FILLED = EventKind.ORDER_FILLED


def _fill() -> Fill:
    return Fill("SPY", Side.BUY, qty("2"), usd("100"), usd("200"), fee=usd("1"))


def test_fold_opens_then_applies_fills_through_the_engine() -> None:
    """C-4: the fold is the engine's own open and apply, nothing of its own."""
    opened = fold_account(None, OPEN, {"account": "a", "cash": str(usd("1000"))})
    assert opened == Portfolio.open(usd("1000"))
    payload = {"account": "a", "fill": _fill().to_payload(), "round": "r1"}
    after = fold_account(opened, FILLED, payload)
    assert after == opened.apply(_fill())
    assert after.cash == usd("799")
    assert after.positions == {"SPY": qty("2")}


@pytest.mark.parametrize(
    ("before", "kind", "payload", "message"),
    [
        ("open", OPEN, {"account": "a", "cash": "1"}, "opened twice"),
        (None, FILLED, {"account": "a", "fill": {}}, "before it was opened"),
        ("open", "PriceRead", {"account": "a"}, "not an account event"),
        (None, OPEN, {"cash": "1"}, "non-empty 'account'"),
        (None, OPEN, {"account": "a", "cash": "+1"}, "canonical integer"),
        ("open", FILLED, {"account": "a", "fill": "x"}, "'fill' object"),
    ],
)
def test_fold_refuses_what_no_account_can_be(
    before: str | None, kind: str, payload: dict[str, object], message: str
) -> None:
    """A malformed or out-of-order account event is a ValueError, never a wrong portfolio."""
    portfolio = None if before is None else Portfolio.open(usd("10"))
    with pytest.raises(ValueError, match=message):
        fold_account(portfolio, kind, payload)


def test_payload_errors_are_the_engines() -> None:
    """A malformed fill is the engine's PayloadError (a ValueError too)."""
    with pytest.raises(PayloadError):
        fold_account(Portfolio.open(usd("10")), FILLED, {"account": "a", "fill": {"x": 1}})


def test_one_fill_payload_is_parsed_once_and_folds_the_same_everywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """C-4: the season state and the projection fold one shared payload; the second reuses.

    The parse is kept per payload object (payload views are read-only), so a
    second fold of the same object does not parse it again, and an equal
    payload in another object is parsed on its own to an equal fill.
    """
    from tradeleague.sim.fill import Fill as FillType

    calls: list[object] = []
    real = FillType.from_payload

    def counting(payload: dict[str, object]) -> Fill:
        calls.append(payload)
        return real(payload)

    monkeypatch.setattr(FillType, "from_payload", counting)
    opened = fold_account(None, OPEN, {"account": "a", "cash": str(usd("1000"))})
    shared = {"account": "a", "fill": _fill().to_payload()}
    first = fold_account(opened, FILLED, shared)
    second = fold_account(opened, FILLED, shared)
    assert first == second == opened.apply(_fill())
    assert len(calls) == 1
    copy = {"account": "a", "fill": _fill().to_payload()}
    assert fold_account(opened, FILLED, copy) == first
    assert len(calls) == 2
